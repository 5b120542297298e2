// A fleet whose clusters are namespaces of the local cluster, each through its own context (the CI
// runners' fleet tests, act-fleet and gitlab-fleet, which need the legs, not four API servers), and
// the admission policy that makes one of them a canary refusing writes while its plan passes.
import { parse, stringify } from 'yaml';
import { kubeconfigContent, kubectl } from './helpers.js';

/** The local kubeconfig with a context per cluster of the fleet, in the namespace `namespaceOf` gives. */
export function fleetKubeconfig(
  clusters: readonly string[],
  namespaceOf: (cluster: string) => string,
): string {
  type Named<T> = { name: string } & T;
  const kc = parse(kubeconfigContent()) as { contexts: Named<{ context: Record<string, string> }>[] };
  const local = kc.contexts.find((c) => c.name === 'spread-local')!;
  const contexts = clusters.map((c) => ({
    name: c,
    context: { ...local.context, namespace: namespaceOf(c) },
  }));
  return stringify({ ...kc, contexts: [...kc.contexts, ...contexts] });
}

/** A ValidatingAdmissionPolicy refusing every write of a ConfigMap in `namespace` but dry runs. */
export function refuseWrites(namespace: string): string {
  const name = `${namespace}-refuse`;
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['configmaps'],
          },
        ],
      },
      validations: [{ expression: 'request.dryRun == true', message: 'the canary refuses writes' }],
    },
  };
  const binding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: {
      policyName: name,
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
    },
  };
  return `${stringify(policy)}---\n${stringify(binding)}`;
}

/**
 * Applies `refuseWrites(namespace)` (or deletes it) and returns once the API server enforces it (or
 * no longer does). A ValidatingAdmissionPolicy takes effect when the API server's policy informer
 * has seen both objects, a moment after the apply returns (seconds on a loaded machine), so a probe
 * ConfigMap is written, and removed, until its answer is the one wanted.
 */
export async function setRefusal(namespace: string, refuse: boolean): Promise<void> {
  const local = ['--context', 'spread-local'];
  await kubectl([...local, refuse ? 'apply' : 'delete', '-f', '-'], {
    input: refuseWrites(namespace),
    allowFail: !refuse,
  });
  const probe = [...local, '-n', namespace];
  for (let tries = 0; ; tries++) {
    const write = await kubectl([...probe, 'create', 'configmap', 'spread-refusal-probe'], {
      allowFail: true,
    });
    if (write.code === 0) await kubectl([...probe, 'delete', 'configmap', 'spread-refusal-probe']);
    const refused = write.stderr.includes('the canary refuses writes');
    if (refused === refuse) return;
    if (tries === 300)
      throw new Error(`the refusal in ${namespace} is not ${refuse ? 'on' : 'off'}: ${write.stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
