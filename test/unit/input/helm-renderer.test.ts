// helmRenderer against a stand-in Helm (a shell script): `helm version` and `helm template` run
// together, so one Helm start-up is off the render path, and a Helm spread refuses is still refused
// whatever its template printed. Real Helm 3 and 4 run in test/integration/helm.itg.test.ts.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { helmRenderer } from '../../../src/input/helm.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A chart folder and a `helm` script: `version` waits 0.4 s then prints VERSION and leaves a file;
 * `template` prints a ConfigMap saying whether that file was there when it started.
 */
function stand(version: string) {
  dir = mkdtempSync(path.join(tmpdir(), 'spread-helm-renderer-'));
  const chart = path.join(dir, 'chart');
  mkdirSync(path.join(chart, 'templates'), { recursive: true });
  writeFileSync(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 1.0.0\n');
  writeFileSync(path.join(chart, 'templates', 'cm.yaml'), 'kind: ConfigMap\n');
  const helm = path.join(dir, 'helm');
  const done = path.join(dir, 'version-done');
  writeFileSync(
    helm,
    `#!/bin/sh
if [ "$1" = version ]; then sleep 0.4; touch '${done}'; printf '%s' '${version}'; exit 0; fi
after=no; [ -e '${done}' ] && after=yes
printf -- '---\\n# Source: demo/templates/cm.yaml\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: demo\\ndata:\\n  afterVersion: "%s"\\n' "$after"
`,
  );
  chmodSync(helm, 0o755);
  const render = helmRenderer({ binary: helm, release: 'demo', namespace: 'ns' });
  return () => render({ kind: 'helm', abs: chart, dir: 'chart', root: dir });
}

describe('helmRenderer', () => {
  test('helm template starts before helm version has answered; the result names the version', async () => {
    const result = await stand('v4.3.1')();
    expect(result.issues).toEqual([]);
    expect(result.tool).toBe('helm v4.3.1');
    expect(result.objects.map((o) => (o.value as { data: unknown }).data)).toEqual([{ afterVersion: 'no' }]);
  });

  test('a Helm spread does not render with is refused, though its template printed objects', async () => {
    const result = await stand('v2.17.0')();
    expect(result.objects).toEqual([]);
    expect(result.issues).toEqual([
      expect.objectContaining({
        severity: 'error',
        source: { file: 'chart/Chart.yaml', line: 0 },
        message: expect.stringContaining('spread renders charts with Helm 3 or 4'),
      }),
    ]);
  });
});
