// CRDs on the local cluster: how a deploy waits for them to be Established (watched by name, not
// polled with whole GETs), counted in the API server's audit log (scripts/cluster/audit-policy.yaml),
// and what --prune-crds may delete.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { deploy } from '../../src/frontend/deploy.js';
import { clusterDir } from './env.js';
import { needs } from './harness.js';
import { kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

const ns = uniqueName('engine-crds');
const group = `${uniqueName('w')}.example.com`;
const AUDIT = path.join(clusterDir(), 'logs/audit.log');
const roots: string[] = [];
const KINDS = ['Widget', 'Gadget', 'Gizmo', 'Sprocket'];
const crdName = (kind: string) => `${kind.toLowerCase()}s.${group}`;

/** A namespaced CRD of `kind` in `group`, its schema padded (real CRDs are 100 KB to 1 MB). */
function crd(kind: string, ...extra: string[]): string {
  const props = ['size: {type: integer}', ...extra].join(`\n${' '.repeat(14)}`);
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${crdName(kind)}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${kind.toLowerCase()}s, singular: ${kind.toLowerCase()}, kind: ${kind}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: "${'a long description '.repeat(2000)}"
        properties:
          spec:
            type: object
            properties:
              ${props}
`;
}

const cr = (kind: string) =>
  `apiVersion: ${group}/v1\nkind: ${kind}\nmetadata:\n  name: one\nspec: {size: 1}\n`;

interface AuditEvent {
  readonly verb: string;
  readonly requestURI: string;
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly name?: string };
}

/** Runs `fn` and returns spread's requests it made, from the audit log (written before each answer). */
async function audited<T>(fn: () => Promise<T>): Promise<{ result: T; events: AuditEvent[] }> {
  const before = readFileSync(AUDIT, 'utf8').length;
  const result = await fn();
  const events = readFileSync(AUDIT, 'utf8')
    .slice(before)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.userAgent === 'spread');
  return { result, events };
}

/** Per CRD: its whole reads (GET by name, LIST by name) and its watches. */
function crdReads(events: readonly AuditEvent[]) {
  return Object.fromEntries(
    KINDS.map((kind) => {
      const name = crdName(kind);
      const mine = events.filter(
        (e) =>
          e.objectRef?.resource === 'customresourcedefinitions' &&
          (e.objectRef.name === name ||
            e.requestURI.includes(`fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`)),
      );
      const count = (verb: string) => mine.filter((e) => e.verb === verb).length;
      return [kind, { get: count('get'), list: count('list'), watch: count('watch') }];
    }),
  );
}

/**
 * Deploys with a logger that keeps the deploy's own request trace: discovery reads (`GET /apis`)
 * carry no name to tell them from other processes' in the shared cluster's audit log.
 */
async function deployTraced(root: string) {
  const trace: string[] = [];
  const logger = { ...silentLogger, debug: (m: string) => trace.push(m) };
  const report = await deploy(localDeploy(root, ns, { wait: false, logger }));
  return { report, discoveries: trace.filter((l) => l === 'API GET /apis').length };
}

beforeAll(async () => {
  await kubectl(['--context', 'spread-local', 'create', 'namespace', ns]);
});

afterAll(async () => {
  await kubectl(['--context', 'spread-local', 'delete', 'namespace', ns, '--wait=false'], {
    allowFail: true,
  });
  for (const kind of [...KINDS, 'Cog'])
    await kubectl(['--context', 'spread-local', 'delete', 'crd', crdName(kind), '--wait=false'], {
      allowFail: true,
    });
  const { rmSync } = await import('node:fs');
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function dir(files: Record<string, string>): string {
  const root = writeDir('crdwait', files);
  roots.push(path.dirname(root));
  return root;
}

describe('waiting for CRDs', () => {
  test(
    'new CRDs are watched until Established, not read again and again; changed ones are not read at all',
    needs('audit'),
    async () => {
      const files = (extra: string[]) => ({
        '.k2e/0-crds.yaml': KINDS.map((k) => crd(k, ...extra)).join('---\n'),
        '.k2e/1-crs.yaml': KINDS.map(cr).join('---\n'),
      });
      const created = await audited(() => deployTraced(dir(files([]))));
      expect(new Set(created.result.report.objects.map((o) => o.action))).toEqual(new Set(['created']));
      const reads = crdReads(created.events);
      // The plan's GET (404), then one LIST and WATCH by name each: never a second whole read.
      for (const kind of KINDS) {
        expect(reads[kind]!.get, JSON.stringify(reads)).toBeLessThanOrEqual(1);
        expect(reads[kind]!.list, JSON.stringify(reads)).toBeLessThanOrEqual(1);
      }
      // Discovery: read once at the start, then once or twice after the CRDs are Established.
      expect(created.result.discoveries).toBeLessThanOrEqual(3);

      // A CRD that gains a field stays Established: the apply's answer says so, nothing is read.
      const changed = await audited(() => deployTraced(dir(files(['color: {type: string}']))));
      expect(
        changed.result.report.objects
          .filter((o) => o.kind === 'CustomResourceDefinition')
          .map((o) => o.action),
      ).toEqual(KINDS.map(() => 'configured'));
      const again = crdReads(changed.events);
      for (const kind of KINDS)
        expect(again[kind], JSON.stringify(again)).toMatchObject({ list: 0, watch: 0 });
      expect(changed.result.discoveries).toBe(1);
    },
  );

  test('--prune-crds keeps a CRD whose custom resources the directory still declares, and says why', async () => {
    const kind = 'Cog';
    const crs = `${cr(kind)}---\n${cr(kind).replace('name: one', 'name: two')}`;
    await deploy(
      localDeploy(dir({ '.k2e/0-crd.yaml': crd(kind), '.k2e/1-crs.yaml': crs }), ns, {
        name: 'keepneeded',
        wait: false,
      }),
    );
    // The CRD's file is gone (kube-prometheus without its setup folder); its custom resources are not.
    const without = dir({ '.k2e/1-crs.yaml': crs });
    for (const mode of ['plan', 'deploy'] as const) {
      const report = await deploy(
        localDeploy(without, ns, { name: 'keepneeded', wait: false, pruneCrds: true, mode }),
      );
      const row = report.objects.find((o) => o.kind === 'CustomResourceDefinition');
      expect(row?.action).toBe(mode === 'plan' ? 'keep' : 'kept');
      expect(row?.note).toMatch(
        /^the directory still declares 2 of its custom resources \(Cog\.\S+ \S+\/one \(\.k2e\/1-crs\.yaml:1\), .*add the CRD's file back, or remove them too$/,
      );
    }
    expect(
      JSON.parse(
        (await kubectl(['--context', 'spread-local', 'get', 'crd', crdName(kind), '-o', 'json'])).stdout,
      ).metadata.deletionTimestamp,
    ).toBeUndefined();
    const left = await kubectl(['--context', 'spread-local', '-n', ns, 'get', crdName(kind), '-o', 'name']);
    expect(left.stdout.trim().split('\n')).toHaveLength(2);
  });
});
