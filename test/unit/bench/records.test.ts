// bench/records.mjs: the records of `npm run bench -- --json FILE` from single runs, and the file.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { benchRecords, median, type Run, writeRecords } from '../../../bench/records.mjs';

const run = (over: Partial<Run>): Run => ({
  objects: 500,
  rttMs: 30,
  step: 'first',
  tool: 'spread',
  ms: 1000,
  ...over,
});

describe('benchRecords', () => {
  test('one record per objects × RTT × step × tool, median/min/max of the runs', () => {
    const records = benchRecords([
      run({ ms: 1200, requests: 1030, writes: 500, rssKb: 102_400 }),
      run({ ms: 1000, requests: 1032, writes: 500, rssKb: 110_592 }),
      run({ ms: 1500, requests: 1034, writes: 500, rssKb: 104_857 }),
      run({ tool: 'kubectl', ms: 20_000.04, requests: 510, writes: 500 }),
    ]);
    expect(records).toEqual([
      {
        objects: 500,
        rtt_ms: 30,
        step: 'first',
        tool: 'spread',
        runs: 3,
        median_ms: 1200,
        min_ms: 1000,
        max_ms: 1500,
        requests: 1032,
        writes: 500,
        peak_rss_mb: 108,
      },
      {
        objects: 500,
        rtt_ms: 30,
        step: 'first',
        tool: 'kubectl',
        runs: 1,
        median_ms: 20_000,
        min_ms: 20_000,
        max_ms: 20_000,
        requests: 510,
        writes: 500,
        peak_rss_mb: null,
      },
    ]);
  });

  test('sorted by objects, RTT, step and tool, whatever the order of the runs', () => {
    const records = benchRecords([
      run({ objects: 5000, rttMs: 0 }),
      run({ rttMs: 30, step: 'pruned', tool: 'kubectl-applyset' }),
      run({ rttMs: 30, step: 'noop', tool: 'helm' }),
      run({ rttMs: 10, step: 'noop', tool: 'floor' }),
      run({ rttMs: 30, step: 'noop', tool: 'spread' }),
    ]);
    expect(records.map((r) => [r.objects, r.rtt_ms, r.step, r.tool])).toEqual([
      [500, 10, 'noop', 'floor'],
      [500, 30, 'noop', 'spread'],
      [500, 30, 'noop', 'helm'],
      [500, 30, 'pruned', 'kubectl-applyset'],
      [5000, 0, 'first', 'spread'],
    ]);
  });

  test('requests and writes not counted are null', () => {
    const [r] = benchRecords([run({ tool: 'floor', step: 'noop' })]);
    expect(r).toMatchObject({ requests: null, writes: null, peak_rss_mb: null });
  });

  test.each([
    [{ step: 'first deploy' }, /unknown step first deploy/],
    [{ tool: 'kapp' }, /unknown tool kapp/],
    [{ ms: Number.NaN }, /time NaN/],
  ])('a run with %j is refused', (over, message) => {
    expect(() => benchRecords([run(over as Partial<Run>)])).toThrow(message);
  });
});

test('median of an even and an odd count', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([undefined])).toBeUndefined();
});

test('writeRecords writes a JSON array that reads back equal', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-json-')), 'out.json');
  const records = benchRecords([run({ requests: 10, writes: 0 }), run({ tool: 'helm', ms: 3000 })]);
  writeRecords(file, records);
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  expect(JSON.parse(text)).toEqual(records);
});
