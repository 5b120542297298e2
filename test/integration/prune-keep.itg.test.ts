import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Logger, silentLogger } from '../../src/base/logger.js';
import { deploy } from '../../src/frontend/deploy.js';
import { deletes } from '../../src/frontend/manage.js';
import { formatReportText } from '../../src/report/report.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

// Prune policy: an object annotated `spread.rsprd.com/prune: keep` (or Helm's equivalent) stays in
// the cluster when the directory drops it, released from the ApplySet, and `spread delete` leaves
// it too unless --include-kept. Flux's key is read as Flux reads it: any case, label or annotation.
const ns = uniqueName('health-itg-keep');
const ctx = ['--context', 'spread-local'];
const PART_OF = 'applyset.kubernetes.io/part-of';

const configMap = (name: string, annotations: Record<string, string> = {}) =>
  `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  annotations: ${JSON.stringify(annotations)}
data: {a: "1"}
`;
const KEEP = { 'spread.rsprd.com/prune': 'keep' };
const HELM_KEEP = { 'helm.sh/resource-policy': 'keep' };

function dir(files: Record<string, string>): string {
  return writeDir('keep', Object.fromEntries(Object.entries(files).map(([n, t]) => [`.k2e/${n}.yaml`, t])));
}

async function configMapJson(
  name: string,
): Promise<{ metadata: { labels?: Record<string, string> } } | undefined> {
  const got = await kubectl([...ctx, '-n', ns, 'get', 'configmap', name, '-o', 'json'], { allowFail: true });
  return got.code === 0 ? JSON.parse(got.stdout) : undefined;
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(`warning: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
    debug: () => {},
    group: (_name, fn) => fn(),
  };
}

const manage = {
  kubeconfig: { paths: [kubeconfigPath()] },
  context: 'spread-local',
  namespace: ns,
  logger: silentLogger,
};

describe('objects annotated keep are left in the cluster', () => {
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
  });

  test('dropped from the directory: still there, out of the ApplySet, listed kept in plan, report and summary', async () => {
    const all = {
      kept: configMap('kept', KEEP),
      'helm-kept': configMap('helm-kept', HELM_KEEP),
      plain: configMap('plain'),
    };
    await deploy(localDeploy(dir(all), ns, { name: 'keep' }));
    expect((await configMapJson('kept'))?.metadata.labels?.[PART_OF]).toBeDefined();

    const only = dir({ plain: all.plain });
    const plan = await deploy(localDeploy(only, ns, { name: 'keep', mode: 'plan' }));
    expect(plan.objects.filter((o) => o.action === 'keep').map((o) => [o.name, o.note])).toEqual([
      [
        'helm-kept',
        expect.stringMatching(
          /^annotated helm\.sh\/resource-policy: keep \(Helm's keep\): left in the cluster and released from the ApplySet/,
        ),
      ],
      ['kept', expect.stringMatching(/^annotated spread\.rsprd\.com\/prune: keep: left in the cluster/)],
    ]);

    const report = await deploy(localDeploy(only, ns, { name: 'keep' }));
    expect(report.objects.filter((o) => o.action === 'kept').map((o) => o.name)).toEqual([
      'helm-kept',
      'kept',
    ]);
    expect(report.objects.filter((o) => o.action === 'pruned')).toEqual([]);
    const summary = formatReportText(report);
    expect(summary).toMatch(
      /configmap\/kept kept .*\n\s+\(annotated spread\.rsprd\.com\/prune: keep: left in the cluster/,
    );
    expect(summary).toMatch(/2 kept from prune/);
    for (const name of ['kept', 'helm-kept']) {
      const live = await configMapJson(name);
      expect(live).toBeDefined();
      expect(live?.metadata.labels?.[PART_OF]).toBeUndefined();
    }
    // Released: the next deploy neither prunes nor lists it again.
    const again = await deploy(localDeploy(only, ns, { name: 'keep' }));
    expect(again.objects.filter((o) => o.action === 'kept' || o.action === 'pruned')).toEqual([]);
    expect(await configMapJson('kept')).toBeDefined();
  });

  test('spread delete leaves an object annotated keep, unless --include-kept', async () => {
    const files = { stay: configMap('stay', KEEP), go: configMap('go') };
    await deploy(localDeploy(dir(files), ns, { name: 'keep-del' }));
    const report = await deletes('keep-del', manage);
    expect(report.objects.map((o) => [o.name, o.action])).toEqual([
      ['go', 'pruned'],
      ['stay', 'kept'],
    ]);
    expect(report.objects.find((o) => o.name === 'stay')?.note).toMatch(
      /^annotated spread\.rsprd\.com\/prune: keep/,
    );
    expect(await configMapJson('go')).toBeUndefined();
    const stay = await configMapJson('stay');
    expect(stay).toBeDefined();
    expect(stay?.metadata.labels?.[PART_OF]).toBeUndefined();

    // Deployed again (taken back: it was released from this deployment), then deleted with --include-kept.
    await deploy(localDeploy(dir(files), ns, { name: 'keep-del' }));
    const all = await deletes('keep-del', { ...manage, includeKept: true });
    expect(all.objects.map((o) => [o.name, o.action]).sort()).toEqual([
      ['go', 'pruned'],
      ['stay', 'pruned'],
    ]);
    expect(await configMapJson('stay')).toBeUndefined();
  });

  test("Flux's prune: Disabled (any case) and its label form keep the object, as Flux reads them", async () => {
    // fluxcd/pkg ssa AnyInMetadata: a label or an annotation, compared with strings.EqualFold.
    const flux = (name: string, meta: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, ${meta}}\ndata: {a: "1"}\n`;
    const files = {
      upper: flux('flux-upper', 'annotations: {kustomize.toolkit.fluxcd.io/prune: Disabled}'),
      label: flux('flux-label', 'labels: {kustomize.toolkit.fluxcd.io/prune: disabled}'),
      plain: configMap('flux-plain'),
    };
    await deploy(localDeploy(dir(files), ns, { name: 'keep-flux' }));
    const report = await deploy(localDeploy(dir({ plain: files.plain }), ns, { name: 'keep-flux' }));
    for (const name of ['flux-upper', 'flux-label']) {
      const live = await configMapJson(name);
      expect(live, name).toBeDefined();
      expect(live?.metadata.labels?.[PART_OF], name).toBeUndefined();
    }
    expect(report.objects.filter((o) => o.action === 'kept').map((o) => [o.name, o.note])).toEqual([
      [
        'flux-label',
        expect.stringMatching(/^labelled kustomize\.toolkit\.fluxcd\.io\/prune: disabled \(Flux's keep\)/),
      ],
      [
        'flux-upper',
        expect.stringMatching(/^annotated kustomize\.toolkit\.fluxcd\.io\/prune: Disabled \(Flux's keep\)/),
      ],
    ]);
  });

  test('a misspelt keep set with kubectl on the cluster object: not pruned, with a warning, until fixed', async () => {
    const kept = { important: configMap('important'), important2: configMap('important2') };
    const rest = { a: configMap('a'), b: configMap('b') };
    await deploy(localDeploy(dir({ ...kept, ...rest }), ns, { name: 'keep-typo' }));
    await kubectl([...ctx, '-n', ns, 'annotate', 'cm', 'important', 'spread.rsprd.com/prune=Keep']);
    await kubectl([...ctx, '-n', ns, 'annotate', 'cm', 'important2', 'spread.rsprd.com/prune=keep']);
    const only = dir(rest);
    const typo =
      /^annotated spread\.rsprd\.com\/prune: "Keep", which is not "keep" \(its only value\): not pruned/;

    const planLog = recordingLogger();
    const plan = await deploy(localDeploy(only, ns, { name: 'keep-typo', mode: 'plan', logger: planLog }));
    expect(plan.objects.filter((o) => o.action !== 'unchanged').map((o) => [o.name, o.action])).toEqual([
      ['important', 'keep'],
      ['important2', 'keep'],
    ]);
    expect(plan.objects.find((o) => o.name === 'important')?.note).toMatch(typo);
    expect(planLog.lines.filter((l) => l.startsWith('warning: '))).toEqual([
      expect.stringMatching(/^warning: configmap\/important would be kept: annotated .*"Keep"/),
    ]);

    const log = recordingLogger();
    const report = await deploy(localDeploy(only, ns, { name: 'keep-typo', logger: log }));
    expect(report.objects.filter((o) => o.action === 'pruned')).toEqual([]);
    expect(report.objects.find((o) => o.name === 'important')).toMatchObject({ action: 'kept' });
    expect(report.objects.find((o) => o.name === 'important')?.note).toMatch(typo);
    expect(log.lines).toContainEqual(
      expect.stringMatching(/^warning: configmap\/important kept: the directory dropped it, but annotated/),
    );
    // Not released: still the deployment's, so the next deploy says it again.
    expect((await configMapJson('important'))?.metadata.labels?.[PART_OF]).toBeDefined();
    expect((await configMapJson('important2'))?.metadata.labels?.[PART_OF]).toBeUndefined();
    const again = await deploy(localDeploy(only, ns, { name: 'keep-typo' }));
    expect(again.objects.filter((o) => o.action === 'kept').map((o) => o.name)).toEqual(['important']);

    // spread delete keeps it too, releases it and warns.
    const delLog = recordingLogger();
    const deleted = await deletes('keep-typo', { ...manage, logger: delLog });
    expect(deleted.objects.map((o) => [o.name, o.action]).sort()).toEqual([
      ['a', 'pruned'],
      ['b', 'pruned'],
      ['important', 'kept'],
    ]);
    expect(delLog.lines).toContainEqual(
      expect.stringMatching(/^warning: configmap\/important -n \S+ kept: .*not deleted/),
    );
    const live = await configMapJson('important');
    expect(live).toBeDefined();
    expect(live?.metadata.labels?.[PART_OF]).toBeUndefined();
  });
});
