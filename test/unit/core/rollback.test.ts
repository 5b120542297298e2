import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { revisionObject } from '../../../src/core/rollback.js';

const stored = (source?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'c',
    namespace: 'app',
    ...(source ? { annotations: { 'spread.rsprd.com/source': source } } : {}),
  },
});

describe('revisionObject: a stored object with the file and line it was deployed from', () => {
  test.each([
    // A deploy's --rollback-on-failure named objects `(web/deployment.yaml:12:0)` before the one rollback.
    ['web/deployment.yaml:12', { file: 'web/deployment.yaml', line: 12 }],
    ['C:/dir/a.yaml:3', { file: 'C:/dir/a.yaml', line: 3 }],
    ['no-line.yaml', { file: 'no-line.yaml', line: 0 }],
    [undefined, { file: '(revision)', line: 0 }],
  ])('%s', (source, expected) => {
    expect(revisionObject(stored(source)).source).toEqual(expected);
  });

  test('the object is a copy: planning it never changes the stored revision', () => {
    const o = stored('a.yaml');
    const copy = revisionObject(o).object;
    expect(copy).toEqual(o);
    expect(copy).not.toBe(o);
  });

  test('its annotation as a deploy applies it, the file only; the stored revision keeps its line', () => {
    const o = stored('a.yaml:7');
    const copy = revisionObject(o).object;
    expect(copy).toEqual(stored('a.yaml'));
    expect(o).toEqual(stored('a.yaml:7'));
  });
});
