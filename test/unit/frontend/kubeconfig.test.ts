import { describe, expect, test } from 'vitest';
import { kubeconfigSource } from '../../../src/frontend/kubeconfig.js';

const only =
  (...files: string[]) =>
  (file: string) =>
    files.includes(file);

describe("kubeconfigSource: kubectl's loading rules", () => {
  test('--kubeconfig wins, and is kept even when it does not exist (then it is the error)', () => {
    expect(kubeconfigSource('/x/flag', { KUBECONFIG: '/a' }, only('/a'))).toEqual({ paths: ['/x/flag'] });
  });

  test('$KUBECONFIG: files that do not exist are skipped, duplicates read once, order kept', () => {
    expect(kubeconfigSource(undefined, { KUBECONFIG: '/missing:/b:/a:/b' }, only('/a', '/b'))).toEqual({
      paths: ['/b', '/a'],
    });
  });

  test('$KUBECONFIG with no file that exists: all kept, so the error names them', () => {
    expect(kubeconfigSource(undefined, { KUBECONFIG: '/m1:/m2' }, only())).toEqual({ paths: ['/m1', '/m2'] });
  });

  test('no $KUBECONFIG: in a Pod without a home the service account, else ~/.kube/config', () => {
    expect(kubeconfigSource(undefined, { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, only())).toEqual({
      inCluster: true,
    });
    expect(kubeconfigSource(undefined, { HOME: '/home/u' }, only())).toEqual({
      paths: ['/home/u/.kube/config'],
    });
  });
});
