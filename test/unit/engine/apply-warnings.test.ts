import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { KubeClient } from '../../../src/cluster/client.js';
import { serverSideApply } from '../../../src/engine/apply/ssa.js';

// A stand-in API server that answers every apply with a deprecation Warning, as kube-apiserver does.
let server: http.Server;
let client: KubeClient;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      Warning: '299 - "policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+"',
    });
    res.end('{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"p"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  client = new KubeClient(kc);
});
afterAll(() => {
  client.close();
  server.closeAllConnections();
  server.close();
});

test('the dry run reports the server’s warnings about an object; the real apply does not repeat them', async () => {
  const object: KubeObject = {
    apiVersion: 'policy/v1beta1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'p', namespace: 'ns' },
  };
  const resource = {
    group: 'policy',
    version: 'v1beta1',
    kind: 'PodDisruptionBudget',
    resource: 'poddisruptionbudgets',
    namespaced: true,
  };
  const warnings: string[] = [];
  const options = {
    fieldManager: 'spread',
    forceConflicts: false,
    onWarning: (_o: KubeObject, w: string) => warnings.push(w),
  };
  await serverSideApply(client, resource, object, options, true);
  await serverSideApply(client, resource, object, options, false);
  expect(warnings).toEqual([
    'policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+',
  ]);
  expect(seen).toEqual([
    'PATCH /apis/policy/v1beta1/namespaces/ns/poddisruptionbudgets/p?fieldManager=spread&fieldValidation=Strict&dryRun=All',
    'PATCH /apis/policy/v1beta1/namespaces/ns/poddisruptionbudgets/p?fieldManager=spread&fieldValidation=Strict',
  ]);
});
