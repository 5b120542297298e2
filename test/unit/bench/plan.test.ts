// bench/plan.mjs: which tools `npm run bench` runs at each size and round trip (--tools-large).
import { describe, expect, test } from 'vitest';
import { orderPeriod, parseLargeTools, passes, runOrder, toolsAt } from '../../../bench/plan.mjs';

const KNOWN = ['spread', 'kubectl', 'kubectl-applyset', 'helm', 'floor'];

describe('parseLargeTools', () => {
  test('tools with and without round trips', () => {
    const large = parseLargeTools('spread, floor,kubectl@0,helm@0/10', KNOWN)!;
    expect([...large.keys()]).toEqual(['spread', 'floor', 'kubectl', 'helm']);
    expect(large.get('spread')).toBeUndefined();
    expect([...(large.get('helm') ?? [])]).toEqual([0, 10]);
  });

  test('all: every tool at every round trip', () => {
    const large = parseLargeTools('all', KNOWN);
    expect(large).toBeUndefined();
    expect(toolsAt(5000, 30, KNOWN, large)).toEqual(KNOWN);
  });

  test.each([
    ['an unknown tool', 'kubect@0', /kubect@0 is not a tool/],
    ['two @', 'kubectl@0@1', /kubectl@0@1 is not a tool/],
    ['a round trip that is not a number', 'helm@ten', /helm@ten: round trips/],
    ['a negative round trip', 'helm@-1', /round trips are whole milliseconds/],
  ])('refuses %s', (_name, text, message) => {
    expect(() => parseLargeTools(text, KNOWN)).toThrow(message);
  });
});

describe('toolsAt', () => {
  const large = parseLargeTools('spread,floor,kubectl@0', KNOWN);

  test('every tool below 5,000 objects, whatever --tools-large says', () => {
    expect(toolsAt(500, 30, KNOWN, large)).toEqual(KNOWN);
  });

  test('at 5,000, only the tools named for that round trip, in the order of --tools', () => {
    expect(toolsAt(5000, 0, KNOWN, large)).toEqual(['spread', 'kubectl', 'floor']);
    expect(toolsAt(5000, 30, KNOWN, large)).toEqual(['spread', 'floor']);
  });

  test('without --tools-large, every tool at every size', () => {
    expect(toolsAt(5000, 30, KNOWN, undefined)).toEqual(KNOWN);
  });
});

describe('passes', () => {
  test('the small sizes at every round trip before any large one', () => {
    expect(passes([100, 500, 5000], [0, 10, 30])).toEqual([
      { rttMs: 0, sizes: [100, 500] },
      { rttMs: 10, sizes: [100, 500] },
      { rttMs: 30, sizes: [100, 500] },
      { rttMs: 0, sizes: [5000] },
      { rttMs: 10, sizes: [5000] },
      { rttMs: 30, sizes: [5000] },
    ]);
  });

  test('one group alone gives one pass per round trip', () => {
    expect(passes([5000], [30])).toEqual([{ rttMs: 30, sizes: [5000] }]);
    expect(passes([500], [0, 30])).toEqual([
      { rttMs: 0, sizes: [500] },
      { rttMs: 30, sizes: [500] },
    ]);
  });
});

describe('runOrder', () => {
  /** How often each value of `key` occurs over `rows`. */
  const counts = (rows: string[][], key: (row: string[]) => string[]) => {
    const out = new Map<string, number>();
    for (const row of rows) for (const k of key(row)) out.set(k, (out.get(k) ?? 0) + 1);
    return out;
  };

  test.each([
    [['spread', 'buildx', 'action', 'node', 'floor'], 10],
    [['spread', 'buildx', 'node', 'floor'], 4],
  ])(
    '%j over %i runs: each tool at each place, and after each other tool, equally often',
    (tools, period) => {
      expect(orderPeriod(tools.length)).toBe(period);
      const rows = [...Array(period).keys()].map((run) => runOrder(tools, run));
      for (const row of rows) expect([...row].sort()).toEqual([...tools].sort());
      const times = period / tools.length;
      const places = counts(rows, (row) => row.map((t, i) => `${t}@${i}`));
      expect(places.size).toBe(tools.length * tools.length);
      for (const n of places.values()) expect(n).toBe(times);
      const pairs = counts(rows, (row) => row.slice(1).map((t, i) => `${row[i]}>${t}`));
      expect(pairs.size).toBe(tools.length * (tools.length - 1));
      for (const n of pairs.values()) expect(n).toBe((period * (tools.length - 1)) / pairs.size);
      expect(runOrder(tools, period)).toEqual(runOrder(tools, 0));
    },
  );
});
