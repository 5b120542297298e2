// The message a deploy with --adopt logs for each Helm release it takes over (the release Secrets are
// left alone): one per release, counting its objects, and none for objects Helm did not write.
import { expect, test } from 'vitest';
import { helmReleasesTakenOver } from '../../../src/core/deploy/apply.js';
import type { PlannedObject } from '../../../src/engine/shared/planned.js';

const planned = (name: string, takesOver: string[], annotations: Record<string, string> = {}) =>
  ({
    action: 'update',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' } },
    live: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop', annotations } },
    takesOver,
  }) as unknown as PlannedObject;

const release = { 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': 'shop' };

test('one line per release taken over, with the command that removes its records', () => {
  expect(
    helmReleasesTakenOver([
      planned('a', ['helm'], release),
      planned('b', ['helm'], release),
      planned('c', ['kubectl'], release),
      planned('d', ['helm']),
    ]),
  ).toEqual([
    "2 objects of Helm release web (namespace shop) taken over; Helm's release records are left as they were: remove them with kubectl delete secret -n shop -l owner=helm,name=web (not helm uninstall, which deletes the objects)",
  ]);
});

test('nothing taken over from Helm: no message', () => {
  expect(helmReleasesTakenOver([planned('a', [], release)])).toEqual([]);
});
