// shownValueAt: a foreign field's live value, as drift shows a field added by hand.
import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { shownValueAt } from '../../../src/deployment/diff.js';

const web: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { team: 'a' }, annotations: { 'example.com/owner': 'b' } },
  spec: { template: { spec: { containers: [{ name: 'c', env: [{ name: 'DEBUG', value: '1' }] }] } } },
};

describe('shownValueAt', () => {
  test.each([
    ['metadata.labels.team', '"a"'],
    ['metadata.annotations.example.com/owner', '"b"'],
    ['spec.template.spec.containers[name=c].env[name=DEBUG].value', '"1"'],
    ['spec.template.spec.containers[0].name', '"c"'],
    ['metadata.labels.other', undefined],
  ])('%s → %s', (path, shown) => expect(shownValueAt(web, path)).toBe(shown));

  test("a Secret's values are redacted", () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { k: 'c2VjcmV0' },
    };
    expect(shownValueAt(secret, 'data.k')).toBe('<redacted>');
  });
});
