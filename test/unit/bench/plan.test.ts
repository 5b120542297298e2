// bench/plan.mjs: which tools `npm run bench` runs at each size and round trip (--tools-large).
import { describe, expect, test } from 'vitest';
import { parseLargeTools, passes, toolsAt } from '../../../bench/plan.mjs';

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
