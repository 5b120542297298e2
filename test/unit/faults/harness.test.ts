// The pure parts of the fault tests (test/faults/): the workload's rounds, the checker's comparisons
// and the seeded schedule generator.
import { describe, expect, test } from 'vitest';
import { differences, type LiveObject, leakedSecrets, touchedSentinel } from '../../faults/checker.js';
import { rng } from '../../faults/faults.js';
import { roundObjects, shape } from '../../faults/workload.js';

const round = (r: number, size = 200) => roundObjects({ size, round: r, seed: 's', group: 'g.faults.test' });
const count = (r: ReturnType<typeof round>, kind: string) => r.objects.filter((o) => o.kind === kind).length;

describe('the workload', () => {
  test('200 objects of every kind the issue names, one `&` Deployment among them', () => {
    const r = round(3);
    expect(r.objects).toHaveLength(200);
    expect(shape(200)).toEqual({ deployments: 20, services: 20, configMaps: 80, secrets: 30, widgets: 49 });
    expect(count(r, 'Deployment')).toBe(20);
    expect(count(r, 'CustomResourceDefinition')).toBe(1);
    expect(count(r, 'Widget')).toBe(49);
    expect(r.objects.some((o) => o.name === 'web')).toBe(true);
  });

  test('each round changes a third of the objects and drops one ConfigMap and one custom resource', () => {
    const [a, b] = [round(4), round(5)];
    const marks = new Map(a.objects.map((o) => [`${o.kind}/${o.name}`, o.mark]));
    const changed = b.objects.filter(
      (o) => marks.has(`${o.kind}/${o.name}`) && marks.get(`${o.kind}/${o.name}`) !== o.mark,
    );
    expect(changed.length).toBeGreaterThan(50);
    expect(changed.length).toBeLessThan(80);
    expect(b.dropped.map((o) => `${o.kind}/${o.name}`).sort()).toEqual(['ConfigMap/cm-5', 'Widget/w-5']);
    expect(b.objects.some((o) => o.name === 'cm-4')).toBe(true);
  });

  test('Secret values differ by seed and by change, and are what the checker searches logs for', () => {
    const r = round(2);
    expect(r.secrets).toHaveLength(30);
    expect(new Set(r.secrets).size).toBe(30);
    const other = roundObjects({ size: 200, round: 2, seed: 't', group: 'g.faults.test' });
    expect(other.secrets.filter((s) => r.secrets.includes(s))).toEqual([]);
  });

  test('fewer than 20 objects is refused', () => {
    expect(() => shape(19)).toThrow('a workload needs at least 20 objects, got 19');
  });
});

describe('the checker', () => {
  const live = (
    kind: string,
    name: string,
    mark: string,
    extra: Partial<LiveObject> = {},
  ): [string, LiveObject] => [
    `${kind}/${name}`,
    {
      kind,
      name,
      mark,
      uid: `u-${name}`,
      resourceVersion: '1',
      partOf: 'a',
      token: undefined,
      groupKind: kind,
      ...extra,
    },
  ];

  test('differences names missing objects, stale marks and a Secret value that differs', () => {
    const r = roundObjects({ size: 20, round: 1, seed: 's', group: 'g' });
    const all = new Map(r.objects.map((o) => live(o.kind, o.name, o.mark, { token: o.secret })));
    expect(differences(r, all)).toEqual([]);
    const first = r.objects.find((o) => o.kind === 'ConfigMap')!;
    const secret = r.objects.find((o) => o.kind === 'Secret')!;
    all.delete(`ConfigMap/${first.name}`);
    all.set(`Secret/${secret.name}`, live('Secret', secret.name, secret.mark, { token: 'other' })[1]);
    const stale = r.objects.find((o) => o.kind === 'Widget')!;
    all.set(`Widget/${stale.name}`, live('Widget', stale.name, '99')[1]);
    expect(differences(r, all)).toEqual([
      `ConfigMap/${first.name} missing`,
      `Secret/${secret.name}: its value differs from the directory's`,
      `Widget/${stale.name} at v99, the directory has v${stale.mark}`,
    ]);
  });

  test('a Secret value is found in a log as it is and in base64', () => {
    expect(leakedSecrets('token=abc123', ['abc123', 'zzz'])).toEqual(['abc123']);
    expect(leakedSecrets(`data: ${Buffer.from('zzz').toString('base64')}`, ['abc123', 'zzz'])).toEqual([
      'zzz',
    ]);
    expect(leakedSecrets('nothing here', ['abc123'])).toEqual([]);
  });

  test("another deployment's object is touched when its resourceVersion changed or it vanished", () => {
    const before = new Map([
      ['ConfigMap/other-0', '1'],
      ['ConfigMap/other-1', '1'],
    ]);
    const now = new Map([live('ConfigMap', 'other-0', '0', { resourceVersion: '2' })]);
    expect(touchedSentinel(before, now)).toEqual(['ConfigMap/other-0', 'ConfigMap/other-1']);
  });
});

test('the schedule generator replays from its seed', () => {
  const a = rng(42);
  const b = rng(42);
  const xs = [a(), a(), a()];
  expect([b(), b(), b()]).toEqual(xs);
  expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  expect(rng(43)()).not.toBe(xs[0]);
});
