// bench/compare.mjs: `npm run bench -- --compare DIR`'s comparison of an older build (spread-before)
// with this one (spread), per measure both medians and after ÷ before.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { buildDist, compareRows, compareTable, peakRss, worse } from '../../../bench/compare.mjs';

const row = (
  tool: string,
  size: number | string,
  step: string,
  ms: number,
  rssMb: number,
  requests = 23,
) => ({
  size,
  rttMs: 30,
  step,
  tool,
  reps: 3,
  ms,
  minMs: ms - 10,
  maxMs: ms + 10,
  rssMb,
  cpuMs: ms / 2,
  requests: { total: requests },
});

const rows = [
  row('spread-before', 500, 'first deploy', 3000, 110, 1030),
  row('spread', 500, 'first deploy', 3300, 100, 1030),
  row('kubectl', 500, 'first deploy', 20000, 60, 509),
  row('spread-before', 500, 'no-op', 600, 100),
  row('spread', 500, 'no-op', 600, 104),
  row('spread-before', 5000, 'no-op', 2000, 170, 34),
  row('spread', 5000, 'no-op', 2000, 180, 35),
  row('spread-before', 5000, '10 % changed', 5000, 175, 1038),
  row('spread', 5000, '10 % changed', 5000, 171, 1038),
  row('spread', 5000, '10 % pruned', 2500, 200, 539),
];

describe('compareRows', () => {
  test('pairs the builds per size, round trip and step; ratios are after ÷ before', () => {
    const c = compareRows(rows);
    expect(c.map((x) => `${x.size} ${x.step}`)).toEqual([
      '500 first deploy',
      '500 no-op',
      '5000 no-op',
      '5000 10 % changed',
    ]);
    const [first, , third] = c;
    expect(first?.before).toEqual({
      reps: 3,
      ms: 3000,
      minMs: 2990,
      maxMs: 3010,
      requests: 1030,
      rssMb: 110,
      cpuMs: 1500,
    });
    expect(first?.ratio.ms).toBeCloseTo(1.1);
    expect(first?.ratio.rssMb).toBeCloseTo(100 / 110);
    expect(third?.ratio.requests).toBeCloseTo(35 / 34);
  });

  test('a step measured by one build alone is left out', () => {
    expect(compareRows(rows).some((x) => x.step === '10 % pruned')).toBe(false);
  });
});

describe('peakRss and worse', () => {
  test('peak RSS is the largest step median of each build at that size', () => {
    expect(peakRss(compareRows(rows), 5000)).toEqual({
      size: 5000,
      before: 175,
      after: 180,
      ratio: 180 / 175,
    });
    expect(peakRss(compareRows(rows), 50)).toBeUndefined();
  });

  test('names every ratio above the limit, and only those', () => {
    expect(worse(compareRows(rows))).toEqual([
      '500 objects, RTT 30 ms, first deploy: ms 1.100',
      '500 objects, RTT 30 ms, first deploy: cpuMs 1.100',
      '5000 objects, RTT 30 ms, no-op: rssMb 1.059',
    ]);
    expect(worse(compareRows(rows), 1.2)).toEqual([]);
  });
});

describe('compareTable', () => {
  test('one line per comparison with both values and the ratio, worse ones marked', () => {
    const text = compareTable(
      compareRows([
        ...rows,
        row('spread-before', 'CRD bundle', 'no-op', 900, 130, 79),
        row('spread', 'CRD bundle', 'no-op', 850, 128, 79),
      ]),
    );
    expect(text).toContain(
      '| 500 | 30 ms | first deploy | 3+3 | 3000 ms (2990 ms–3010 ms) | 3300 ms (3290 ms–3310 ms) | 1.100 **worse** | 1500 ms → 1650 ms | 1.100 **worse** | 1030 → 1030 | 1.000 | 110.0 MB → 100.0 MB | 0.909 |',
    );
    expect(text).toContain('| 5,000 | 30 ms | no-op |');
    expect(text).toContain('| CRD bundle | 30 ms | no-op |');
    expect(text).toContain('- peak RSS at 5,000 objects (largest step median): 175.0 MB → 180.0 MB, 1.029');
    expect(text).not.toContain('peak RSS at CRD bundle');
    expect(text).toContain(
      '- worse than 1.05: 500 objects, RTT 30 ms, first deploy: ms 1.100; 500 objects, RTT 30 ms, first deploy: cpuMs 1.100; 5000 objects',
    );
  });

  test('says so when no ratio is worse', () => {
    expect(compareTable(compareRows(rows), 1.2)).toContain('- no ratio worse than 1.20');
  });
});

describe('buildDist', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'spread-compare-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a checkout (its dist/) or a dist/ itself, made absolute; neither is an error naming the build', () => {
    mkdirSync(path.join(dir, 'dist', 'cli'), { recursive: true });
    writeFileSync(path.join(dir, 'dist', 'cli', 'index.js'), '');
    expect(buildDist(dir)).toBe(path.join(dir, 'dist'));
    expect(buildDist(path.relative(process.cwd(), dir))).toBe(path.join(dir, 'dist'));
    expect(buildDist(path.join(dir, 'dist'))).toBe(path.join(dir, 'dist'));
    expect(() => buildDist(path.join(dir, 'dist', 'cli'))).toThrow(
      /no cli\/index.js in it or in its dist\/.*node scripts\/build.mjs/,
    );
  });
});
