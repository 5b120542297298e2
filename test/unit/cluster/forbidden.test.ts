import { expect, test } from 'vitest';
import { KubeApiError } from '../../../src/cluster/client.js';
import { forbiddenHint, parseForbidden } from '../../../src/cluster/forbidden.js';
import { explainApiError } from '../../../src/engine/apply/errors.js';

const NAMESPACED =
  'deployments.apps "web" is forbidden: User "team-a-deployer" cannot patch resource "deployments" in API group "apps" in the namespace "shop"';

test.each([
  [
    'a namespaced write by a user: a Role rule, and the commands to create and bind it',
    NAMESPACED,
    'a Role in namespace shop with the rule {apiGroups: ["apps"], resources: ["deployments"], verbs: ["patch"]}, bound to User "team-a-deployer", allows it (kubectl create role NAME --verb=patch --resource=deployments.apps -n shop and kubectl create rolebinding NAME --role=NAME --user=team-a-deployer -n shop)',
  ],
  [
    'a core-group resource of a ServiceAccount',
    'configmaps "x" is forbidden: User "system:serviceaccount:ci:deployer" cannot create resource "configmaps" in API group "" in the namespace "default"',
    'a Role in namespace default with the rule {apiGroups: [""], resources: ["configmaps"], verbs: ["create"]}, bound to ServiceAccount ci/deployer, allows it (kubectl create role NAME --verb=create --resource=configmaps -n default and kubectl create rolebinding NAME --role=NAME --serviceaccount=ci:deployer -n default)',
  ],
  [
    'a cluster-scoped resource: a ClusterRole',
    'namespaces "shop" is forbidden: User "ci" cannot patch resource "namespaces" in API group "" at the cluster scope',
    'a ClusterRole with the rule {apiGroups: [""], resources: ["namespaces"], verbs: ["patch"]}, bound to User "ci", allows it (kubectl create clusterrole NAME --verb=patch --resource=namespaces and kubectl create clusterrolebinding NAME --clusterrole=NAME --user=ci)',
  ],
  [
    'a subresource',
    'deployments.apps "web" is forbidden: User "ci" cannot update resource "deployments/scale" in API group "apps" in the namespace "shop"',
    'a Role in namespace shop with the rule {apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["update"]}, bound to User "ci", allows it (kubectl create role NAME --verb=update --resource=deployments.apps/scale -n shop and kubectl create rolebinding NAME --role=NAME --user=ci -n shop)',
  ],
])('%s', (_name, message, hint) => {
  expect(forbiddenHint(message)).toBe(hint);
});

test('a 403 that is not the RBAC authorizer (an admission webhook) gets no rule', () => {
  expect(parseForbidden('admission webhook "policy.example.com" denied the request: no')).toBeUndefined();
});

test('explainApiError names the verb, resource and namespace, and the rule that allows them', () => {
  const error = new KubeApiError(403, 'PATCH', { reason: 'Forbidden', message: NAMESPACED }, '');
  expect(explainApiError(error)).toBe(
    `forbidden: ${NAMESPACED}; a Role in namespace shop with the rule {apiGroups: ["apps"], resources: ["deployments"], verbs: ["patch"]}, bound to User "team-a-deployer", allows it (kubectl create role NAME --verb=patch --resource=deployments.apps -n shop and kubectl create rolebinding NAME --role=NAME --user=team-a-deployer -n shop)`,
  );
});
