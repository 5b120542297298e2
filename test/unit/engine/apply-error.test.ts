import { describe, expect, test } from 'vitest';
import type { SourcedObject } from '../../../src/base/kube-object.js';
import { ApplyError } from '../../../src/engine/apply/errors.js';

const cm = (i: number): SourcedObject => ({
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'ns' } },
  source: { file: `.k2e/cm-${i}.yaml`, line: 1 },
});
const many = (from: number, n: number) => Array.from({ length: n }, (_, i) => cm(from + i));

describe('ApplyError messages', () => {
  test('an interrupted plan is one line, not one failure per object', () => {
    const failures = many(0, 1500).map((object) => ({ object, message: 'interrupted by SIGTERM' }));
    expect(new ApplyError('plan', failures).message).toBe(
      'interrupted by SIGTERM during the plan; nothing was written:\n  interrupted by SIGTERM: 1500 object(s) not finished',
    );
  });

  test('an interrupted apply counts what was applied, and lists at most 20 names', () => {
    const failures = many(0, 3).map((object) => ({ object, message: 'interrupted by SIGINT' }));
    const applied = many(10, 25).map((o) => ({
      ...o,
      resource: undefined as never,
      action: 'created' as const,
      live: o.object,
    }));
    const message = new ApplyError('apply', failures, applied, many(100, 2)).message;
    const lines = message.split('\n');
    expect(lines[0]).toBe('interrupted by SIGINT: 25 applied, 5 not applied; nothing was pruned:');
    expect(lines[1]).toBe(
      '  interrupted by SIGINT: 3 object(s) not finished (a request in flight may have reached the server)',
    );
    expect(lines[2]).toMatch(
      /^applied: ConfigMap ns\/cm-10 \(\.k2e\/cm-10\.yaml:1\), .*ConfigMap ns\/cm-29 \(\.k2e\/cm-29\.yaml:1\), … and 5 more$/,
    );
    expect(lines[3]).toBe(
      'not applied: ConfigMap ns/cm-100 (.k2e/cm-100.yaml:1), ConfigMap ns/cm-101 (.k2e/cm-101.yaml:1)',
    );
  });

  test('real failures are each listed, with file and line, beside an interrupt', () => {
    const failures = [
      { object: cm(1), message: 'data: Invalid value' },
      { object: cm(2), message: 'interrupted by SIGTERM' },
    ];
    expect(new ApplyError('plan', failures).message).toBe(
      'the plan failed for 2 object(s); nothing was written:\n  ConfigMap ns/cm-1 (.k2e/cm-1.yaml:1): data: Invalid value\n  interrupted by SIGTERM: 1 object(s) not finished',
    );
  });
});

describe('identical causes are grouped', () => {
  test('76 objects with one cause are one entry with 5 names; other causes stay one line each, in order', () => {
    const missing = 'namespaces "monitoring" not found';
    const failures = [
      { object: cm(0), message: 'data: Invalid value' },
      ...many(1, 76).map((object) => ({ object, message: missing })),
      { object: cm(90), message: 'data: Invalid value' },
      { object: cm(91), message: 'forbidden: no' },
    ];
    expect(new ApplyError('plan', failures).message.split('\n')).toEqual([
      'the plan failed for 79 object(s); nothing was written:',
      '  2 objects: data: Invalid value',
      '      ConfigMap ns/cm-0 (.k2e/cm-0.yaml:1), ConfigMap ns/cm-90 (.k2e/cm-90.yaml:1)',
      `  76 objects: ${missing}`,
      `      ${[1, 2, 3, 4, 5].map((i) => `ConfigMap ns/cm-${i} (.k2e/cm-${i}.yaml:1)`).join(', ')}, … and 71 more`,
      '  ConfigMap ns/cm-91 (.k2e/cm-91.yaml:1): forbidden: no',
    ]);
  });
});

describe('locatedFailures of an interrupted deploy', () => {
  test('one unlocated failure for every interrupted object, the real ones located', async () => {
    const { locatedFailures } = await import('../../../src/core/errors.js');
    const failures = [
      { object: cm(1), message: 'data: Invalid value' },
      ...many(2, 400).map((object) => ({ object, message: 'interrupted by SIGTERM' })),
    ];
    expect(locatedFailures(new ApplyError('apply', failures))).toEqual([
      {
        message: 'ConfigMap ns/cm-1 (.k2e/cm-1.yaml:1): data: Invalid value',
        file: '.k2e/cm-1.yaml',
        line: 1,
        severity: 'error',
      },
      { message: 'interrupted by SIGTERM: 400 object(s) not finished', severity: 'error' },
    ]);
  });
});
