import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { APPLYSET } from '../../../src/base/labels.js';
import { KubeApiError, type KubeRequest, METADATA_LIST_ACCEPT } from '../../../src/cluster/client.js';
import {
  applySetFor,
  findPruneCandidates,
  listSetMembers,
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

  describe('with members listed earlier (`listed`)', () => {
    const configMap = (name: string, namespace = 'prod') => ({
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } },
      source: { file: 'x.yaml', line: 1 },
    });
    /** A client answering every LIST with `old` and `kept` (CRDs: none), counting the requests. */
    const counting = () => {
      const sent: KubeRequest[] = [];
      const client = {
        request: async (req: KubeRequest) => {
          sent.push(req);
          if (req.path.endsWith('/customresourcedefinitions')) return answer([]);
          const ns = /namespaces\/([^/]+)/.exec(req.path)?.[1];
          return answer([item('old', ns), item('kept', ns)]);
        },
      };
      return { sent, client: client as never };
    };

    test('takes the candidates from them, without a request, when they cover the current objects', async () => {
      const early = counting();
      const listed = listSetMembers(early.client, discovery as never, set, previous, [configMap('kept')]);
      const now = counting();
      const found = await findPruneCandidates(
        now.client,
        discovery as never,
        set,
        previous,
        [configMap('kept')],
        {
          listed,
        },
      );
      expect(found.map((c) => c.object.metadata.name)).toEqual(['old']);
      expect(early.sent).toHaveLength(2);
      expect(now.sent).toEqual([]);
    });

    test('lists again when the current objects use a namespace they did not cover', async () => {
      const early = counting();
      const listed = listSetMembers(early.client, discovery as never, set, previous, [configMap('kept')]);
      const now = counting();
      const current = [configMap('kept'), configMap('kept', 'staging')];
      const found = await findPruneCandidates(now.client, discovery as never, set, previous, current, {
        listed,
      });
      expect(now.sent.map((r) => r.path).sort()).toEqual([
        '/api/v1/namespaces/prod/configmaps',
        '/api/v1/namespaces/staging/configmaps',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      ]);
      expect(found.map((c) => `${c.object.metadata.namespace}/${c.object.metadata.name}`)).toEqual([
        'prod/old',
        'staging/old',
      ]);
    });

    test('lists again when their listing failed', async () => {
      const listed = Promise.reject(new Error('ECONNRESET'));
      const now = counting();
      const found = await findPruneCandidates(
        now.client,
        discovery as never,
        set,
        previous,
        [configMap('kept')],
        {
          listed,
        },
      );
      expect(now.sent).toHaveLength(2);
      expect(found.map((c) => c.object.metadata.name)).toEqual(['old']);
    });

    test('reports the lists they were refused when it uses them', async () => {
      const refusing = {
        request: async (req: KubeRequest) => {
          if (req.path.endsWith('/customresourcedefinitions'))
            throw new KubeApiError(403, 'LIST', { reason: 'Forbidden', message: 'forbidden' } as never, '');
          return answer([item('old', 'prod')]);
        },
      };
      const listed = listSetMembers(refusing as never, discovery as never, set, previous, []);
      const forbidden: string[] = [];
      const now = counting();
      const found = await findPruneCandidates(now.client, discovery as never, set, previous, [], {
        listed,
        onForbidden: (what) => forbidden.push(what),
      });
      expect(now.sent).toEqual([]);
      expect(found.map((c) => c.object.metadata.name)).toEqual(['old']);
      expect(forbidden).toEqual(['customresourcedefinitions.apiextensions.k8s.io']);
    });
  });
});
