import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HISTORY } from '../../src/base/labels.js';
import { KubeClient, METADATA_LIST_ACCEPT } from '../../src/cluster/client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { applySetFor } from '../../src/engine/inventory/applyset.js';
import { listRevisions } from '../../src/engine/inventory/history.js';
import { LIST_THRESHOLD } from '../../src/engine/plan/live.js';
import { deploy } from '../../src/frontend/deploy.js';
import { clusterDir } from './env.js';
import { needs } from './harness.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName } from './helpers.js';

// The plan reads a namespace's Secrets with one LIST that leaves spread's revision Secrets out
// (`fieldSelector=type!=…`), and the revisions are listed as metadata only: both asked of the real
// API server, which must take the selector and the PartialObjectMetadataList form.
const ns = uniqueName('itg-revlist');
const AUDIT = path.join(clusterDir(), 'logs/audit.log');
const ctx = ['--context', 'spread-local'];
const root = path.join(mkdtempSync(path.join(tmpdir(), 'spread-revlist-')), 'vault');
const secrets = LIST_THRESHOLD + 2;
let client: KubeClient;

/** The set: `secrets` Secrets, the first one's value starting with `first`. */
function write(first: string): void {
  writeFileSync(
    path.join(root, '.k2e', 'secrets.yaml'),
    Array.from(
      { length: secrets },
      (_, i) =>
        `apiVersion: v1\nkind: Secret\nmetadata: {name: s${i}}\nstringData: {k: ${i === 0 ? first : 'v'}${i}}\n`,
    ).join('---\n'),
  );
}

const run = () => deploy(localDeploy(root, ns, { wait: false, timeoutMs: 60_000, commit: 'feedbee' }));

describe('revision Secrets beside a set of Secrets', needs('audit'), () => {
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
    client = new KubeClient(loadKubeconfig({ paths: [kubeconfigPath()] }, 'spread-local').kubeConfig);
    mkdirSync(path.join(root, '.k2e'), { recursive: true });
    write('v');
  });
  afterAll(async () => {
    client?.close();
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  });

  test('redeploys find the Secrets of the set as they are while revisions exist', async () => {
    const first = await run();
    expect(first.objects.map((o) => o.action)).toEqual(Array(secrets).fill('created'));
    write('changed');
    const second = await run();
    expect(second.objects.map((o) => `${o.name} ${o.action}`).sort()).toEqual(
      Array.from({ length: secrets }, (_, i) => `s${i} ${i === 0 ? 'configured' : 'unchanged'}`).sort(),
    );
    expect(second.revision).toBe(2);
    const before = readFileSync(AUDIT, 'utf8').length;
    const third = await run();
    expect(third.objects.map((o) => o.action)).toEqual(Array(secrets).fill('unchanged'));
    // The audit backend writes each event before the response is sent (blocking mode).
    const lists = readFileSync(AUDIT, 'utf8')
      .slice(before)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { verb: string; requestURI: string; userAgent?: string })
      .filter((e) => e.userAgent === 'spread' && e.verb === 'list')
      .map((e) => decodeURIComponent(e.requestURI))
      .filter((uri) => uri.startsWith(`/api/v1/namespaces/${ns}/secrets?`));
    expect(lists.length).toBeGreaterThan(0);
    // No LIST of the namespace's Secrets reads the revisions' data: the plan's leaves them out.
    for (const uri of lists)
      expect(uri).toMatch(/fieldSelector=type!=spread\.rsprd\.com\/revision|labelSelector=/);
    expect(lists.some((uri) => uri.includes('fieldSelector=type!=spread.rsprd.com/revision'))).toBe(true);
  });

  test('revisions are listed as metadata, their summaries read from labels and annotations', async () => {
    const set = applySetFor('vault', ns);
    const revisions = await listRevisions(client, set);
    expect(revisions.map((r) => [r.revision, r.objectCount, r.commit])).toEqual([
      [2, secrets, 'feedbee'],
      [1, secrets, 'feedbee'],
    ]);
    // What listRevisions asks for: PartialObjectMetadata, no data.
    const answer = await client.request<{ kind?: string; items: { kind?: string; data?: unknown }[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${ns}/secrets`,
      query: { fieldSelector: `type=${HISTORY.type}` },
      accept: METADATA_LIST_ACCEPT,
    });
    expect(answer.body.kind).toBe('PartialObjectMetadataList');
    expect(answer.body.items).toHaveLength(2);
    for (const item of answer.body.items) expect(item.data).toBeUndefined();
  });
});
