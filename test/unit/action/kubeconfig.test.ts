import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { prepareKubeconfig } from '../../../src/action/kubeconfig.js';

const temp = mkdtempSync(path.join(tmpdir(), 'spread-action-kc-'));

test('an empty kubeconfig input with no kubeconfig on the runner says the input (or its secret) was empty', () => {
  const missing = path.join(temp, 'missing', 'config');
  expect(() => prepareKubeconfig('  \n', '', { temp, kubeconfig: { paths: [missing] } })).toThrow(
    `no kubeconfig: the input kubeconfig is empty, and the runner has none (${missing} does not exist). When the input comes from a secret (kubeconfig: \${{ secrets.KUBECONFIG }}), that secret is empty or not set in this repository or environment, or not given to this run (workflows of pull requests from forks get no secrets); otherwise write a kubeconfig in an earlier step and point KUBECONFIG at it`,
  );
});

test("an empty kubeconfig input uses the runner's kubeconfig when it has one", () => {
  const file = path.join(temp, 'config');
  writeFileSync(file, 'apiVersion: v1\nkind: Config\n');
  const prepared = prepareKubeconfig('', '', {
    temp,
    kubeconfig: { paths: [path.join(temp, 'gone'), file] },
  });
  expect(prepared.source).toEqual({ paths: [path.join(temp, 'gone'), file] });
});
