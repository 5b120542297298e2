import { describe, expect, test } from 'vitest';
import { APPLYSET } from '../../../src/base/labels.js';
import { type KubeRequest, METADATA_LIST_ACCEPT } from '../../../src/cluster/client.js';
import {
  applySetFor,
  findPruneCandidates,
  type parseGroupKind,
} from '../../../src/engine/inventory/applyset.js';
import { RESOURCES } from './fake-kube.js';

const set = applySetFor('web', 'prod');
const previous = {
  exists: true,
  groupKinds: ['ConfigMap', 'CustomResourceDefinition.apiextensions.k8s.io'],
  namespaces: ['prod'],
  fingerprints: new Set<string>(),
};
const discovery = {
  resolveGroupKind: async (gk: ReturnType<typeof parseGroupKind>) =>
    RESOURCES.find((r) => r.group === gk.group && r.kind === gk.kind),
};
const labelled = (name: string) => ({
  metadata: { name, labels: { [APPLYSET.partOf]: set.id } },
});

describe('findPruneCandidates', () => {
  test('lists metadata only (PartialObjectMetadataList), except CRDs, whose spec counting needs', async () => {
    const sent: KubeRequest[] = [];
    const client = {
      request: async (req: KubeRequest) => {
        sent.push(req);
        const crds = req.path.endsWith('/customresourcedefinitions');
        // As the API server answers each: a metadata item carries the list's own apiVersion and kind.
        const item = crds
          ? { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...labelled('w.x') }
          : { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', ...labelled('old') };
        return {
          status: 200,
          body: {
            items: [{ ...item, metadata: { ...item.metadata, namespace: crds ? undefined : 'prod' } }],
          },
          warnings: [],
        };
      },
    };
    const found = await findPruneCandidates(client as never, discovery as never, set, previous, []);
    const accepts = Object.fromEntries(sent.map((r) => [r.path, r.accept]));
    expect(accepts).toEqual({
      '/api/v1/namespaces/prod/configmaps': METADATA_LIST_ACCEPT,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions': undefined,
    });
    expect(found.map((c) => [c.object.apiVersion, c.object.kind, c.object.metadata.name, c.path])).toEqual([
      ['v1', 'ConfigMap', 'old', '/api/v1/namespaces/prod/configmaps/old'],
      [
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        'w.x',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/w.x',
      ],
    ]);
  });
});
