import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
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
/** An item as the API server lists it: a metadata item carries the list's apiVersion and kind. */
const item = (name: string, namespace?: string): KubeObject => ({
  apiVersion: namespace ? 'meta.k8s.io/v1' : 'apiextensions.k8s.io/v1',
  kind: namespace ? 'PartialObjectMetadata' : 'CustomResourceDefinition',
  metadata: { name, ...(namespace ? { namespace } : {}), labels: { [APPLYSET.partOf]: set.id } },
});
const answer = (items: KubeObject[], more?: string) => ({
  status: 200,
  body: { items, metadata: more ? { continue: more } : {} },
  warnings: [],
});

describe('findPruneCandidates', () => {
  test('lists metadata only (PartialObjectMetadataList), except CRDs, whose spec counting needs; pages of 500', async () => {
    const sent: KubeRequest[] = [];
    const client = {
      request: async (req: KubeRequest) => {
        sent.push(req);
        if (req.path.endsWith('/customresourcedefinitions')) return answer([item('w.x')]);
        // The ConfigMaps come in two pages; `kept` is in the directory, so no candidate.
        return req.query?.continue === 'page-2'
          ? answer([item('older', 'prod')])
          : answer([item('old', 'prod'), item('kept', 'prod')], 'page-2');
      },
    };
    const current = [
      {
        object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'prod' } },
        source: { file: 'x.yaml', line: 1 },
      },
    ];
    const found = await findPruneCandidates(client as never, discovery as never, set, previous, current);
    // The two LISTs run side by side: their requests in path order, pages in order.
    const byPath = [...sent].sort((a, b) => a.path.localeCompare(b.path));
    expect(byPath.map((r) => [r.path, r.accept, r.query?.limit, r.query?.continue])).toEqual([
      ['/api/v1/namespaces/prod/configmaps', METADATA_LIST_ACCEPT, 500, undefined],
      ['/api/v1/namespaces/prod/configmaps', METADATA_LIST_ACCEPT, 500, 'page-2'],
      ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions', undefined, 500, undefined],
    ]);
    expect(found.map((c) => [c.object.apiVersion, c.object.kind, c.object.metadata.name, c.path])).toEqual([
      ['v1', 'ConfigMap', 'old', '/api/v1/namespaces/prod/configmaps/old'],
      ['v1', 'ConfigMap', 'older', '/api/v1/namespaces/prod/configmaps/older'],
      [
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        'w.x',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/w.x',
      ],
    ]);
  });

  describe("with the members the plan's LISTs noted (`listed`)", () => {
    const configMap = (name: string) => ({
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'prod' } },
      source: { file: 'x.yaml', line: 1 },
    });
    const counting = () => {
      const sent: KubeRequest[] = [];
      const client = {
        request: async (req: KubeRequest) => {
          sent.push(req);
          return answer(
            req.path.endsWith('/customresourcedefinitions') ? [] : [item('listed-again', 'prod')],
          );
        },
      };
      return { sent, client: client as never };
    };
    const member = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'prod', labels: { [APPLYSET.partOf]: set.id } },
    });
    const noted = (partOf: string) => ({
      partOf,
      byCollection: new Map([['/api/v1/namespaces/prod/configmaps', [member('old'), member('kept')]]]),
    });
    /** findPruneCandidates with `old` and `kept` noted for `partOf`: the paths it listed, the names found. */
    async function pruneWith(current: string[], partOf: string) {
      const now = counting();
      const found = await findPruneCandidates(
        now.client,
        discovery as never,
        set,
        previous,
        current.map(configMap),
        {
          listed: noted(partOf),
        },
      );
      return { listed: now.sent.map((r) => r.path).sort(), found: found.map((c) => c.object.metadata.name) };
    }

    test('does not list a noted collection without a candidate', async () => {
      const { listed, found } = await pruneWith(['kept', 'old'], set.id);
      expect(listed).toEqual(['/apis/apiextensions.k8s.io/v1/customresourcedefinitions']);
      expect(found).toEqual([]);
    });

    test('lists a noted collection with a candidate again, and decides on that LIST', async () => {
      // Noted: `old`; listed now: `listed-again` (`old` gone meanwhile): the LIST decides.
      const { listed, found } = await pruneWith(['kept'], set.id);
      expect(listed).toEqual([
        '/api/v1/namespaces/prod/configmaps',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      ]);
      expect(found).toEqual(['listed-again']);
    });

    test('members noted for another ApplySet are not used', async () => {
      const { listed, found } = await pruneWith(['kept'], 'applyset-other-v1');
      expect(listed).toEqual([
        '/api/v1/namespaces/prod/configmaps',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      ]);
      expect(found).toEqual(['listed-again']);
    });
  });
});
