import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import type { Applied } from '../../../src/core/deploy-apply.js';
import { forSettle } from '../../../src/core/deploy-settle.js';
import type { AppliedObject } from '../../../src/engine/apply/applied.js';

const managedFields = [
  {
    manager: 'spread',
    operation: 'Apply',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': {} },
  },
];

function applied(apiVersion: string, kind: string, resource: string, spec: object = {}): AppliedObject {
  const object: KubeObject = {
    apiVersion,
    kind,
    metadata: { name: kind.toLowerCase(), namespace: 'app' },
    spec,
  };
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return {
    object,
    source: { file: `${kind}.yaml`, line: 1 },
    resource: { group: group!, version: version!, kind, resource, namespaced: true },
    action: 'configured',
    live: { ...object, metadata: { ...object.metadata, uid: 'u', managedFields }, status: {} },
  };
}

describe('forSettle: what the rollout wait and the URL read of the apply', () => {
  const deployment = applied('apps/v1', 'Deployment', 'deployments', {
    selector: { matchLabels: { a: 'b' } },
  });
  const service = applied('v1', 'Service', 'services', { ports: [{ port: 80 }] });
  const configMap = applied('v1', 'ConfigMap', 'configmaps');
  const outcome = {
    converged: { applied: [configMap, deployment, service], fingerprints: ['f'] },
    reported: [],
    revisionBefore: 3,
    unchanged: false,
    revisionBeforeRead: undefined,
    revisionsRead: undefined,
  } as unknown as Applied;

  test('keeps the waited and URL objects, their live state without managedFields, and the rest of the outcome', () => {
    const settling = forSettle(outcome, {});
    expect(settling.converged.applied.map((a) => a.object.kind)).toEqual(['Deployment', 'Service']);
    for (const a of settling.converged.applied) {
      expect(a.live.metadata.managedFields).toBeUndefined();
      expect(a.live.metadata.uid).toBe('u');
      expect(a.live.spec).toEqual(a.object.spec);
    }
    expect(settling.converged.fingerprints).toEqual(['f']);
    expect(settling.revisionBefore).toBe(3);
  });

  test('leaves the apply outcome it was given as it was (the report still has it)', () => {
    forSettle(outcome, {});
    expect(outcome.converged.applied).toHaveLength(3);
    expect(deployment.live.metadata.managedFields).toEqual(managedFields);
  });
});
