import { expect, test } from 'vitest';
import { deploymentOf } from '../../../src/deployment/index.js';
import { DirectoryInput, formatIssue, InputError, ManifestInput } from '../../../src/input/index.js';

/**
 * The bad-input corpus: every fixture under test/fixtures/bad/ with a fragment of the message
 * expected, and the file (relative to the fixture) and line it must point at. A fixture ending in
 * .yaml/.json is read with ManifestInput, a directory with DirectoryInput; the Deployment is built
 * too, since duplicates are found there.
 */
const CASES: readonly (readonly [fixture: string, fragment: string, file: string, line: number])[] = [
  // the directory convention
  ['no-config', 'no Kubernetes configuration in', '.', 0],
  ['ctr-bad-file-name', 'no Kubernetes configuration in', '.', 0],
  ['two-controllers', 'at most one controller, found deployment.yaml and rc.yaml', 'rc.yaml', 0],
  ['two-pods', 'at most one pod file, found pod.yaml and pod.yml', 'pod.yml', 0],
  ['named-twice', 'web.rc.yaml and web.rc.yml both define the controller web', 'web.rc.yml', 0],
  ['ctr-ambiguous', 'cannot tell which of ReplicationController api (api.rc.yaml:1)', 'shared.ctr', 1],
  ['rc-two-docs', 'rc.yaml holds 2 documents', 'rc.yaml', 6],
  ['ctr-two-docs', 'web.ctr holds 2 documents', 'web.ctr', 4],
  ['rc-empty', 'rc.yaml is empty', 'rc.yaml', 0],
  ['ctr-empty', 'web.ctr is empty', 'web.ctr', 0],
  // encodings
  ['utf16-no-bom', 'rc.yaml looks UTF-16 encoded without a byte-order mark', 'rc.yaml', 0],
  ['binary', '.k2e/blob.yaml is not a text file', '.k2e/blob.yaml', 0],
  ['latin1', '.k2e/cm.yaml is not UTF-8 text', '.k2e/cm.yaml', 0],
  // YAML
  ['yaml-syntax', 'YAML: ', 'rc.yaml', 6],
  ['duplicate-key', 'YAML: key name is written twice in one mapping (lines 4 and 5)', 'rc.yaml', 5],
  ['tab-indent', 'YAML: Tabs are not allowed as indentation', 'rc.yaml', 4],
  ['unknown-alias', 'YAML: alias *img names no anchor: there is no &img in this file', 'app.ctr', 1],
  [
    'alias-other-document',
    'YAML: alias *labels names the anchor &labels of another document of this file (line 5): anchors do not reach across ---',
    '.k2e/objects.yaml',
    12,
  ],
  ['merge-not-map', 'YAML: Merge sources must be maps', '.k2e/cm.yaml', 1],
  ['manifest-unclosed.json', 'YAML: Flow map must end with a }', 'manifest-unclosed.json', 3],
  // containers and images
  [
    'ctr-no-image',
    'Container web (web.ctr:1) in ReplicationController app (rc.yaml:1): image is missing',
    'web.ctr',
    1,
  ],
  ['ctr-anchor-image', 'YAML read &web as an anchor, not a value; quote it: image: "&web"', 'web.ctr', 2],
  ['ctr-image-number', 'image must be a string, found a number (42)', 'web.ctr', 2],
  ['ctr-image-bare-amp', 'image "&" marks a build but names no image', 'web.ctr', 2],
  ['ctr-image-space', 'image "nginx latest" holds whitespace', 'web.ctr', 2],
  [
    'ctr-is-pod',
    'a .ctr file holds one core/v1 Container, which has no kind or apiVersion; found a Pod',
    'web.ctr',
    2,
  ],
  ['ctr-bad-name', 'container name Web_1 is not a DNS-1123 label', 'web.ctr', 1],
  ['ctr-sequence', 'expected a Container (a mapping), found a sequence', 'web.ctr', 1],
  [
    'inline-container-no-name',
    'Container (pod.yaml:7) in Pod p (pod.yaml:1): container has no name',
    'pod.yaml',
    7,
  ],
  ['duplicate-container', 'container name app is already used by rc.yaml:9', 'app.ctr', 1],
  ['containers-not-sequence', 'containers must be a sequence', 'rc.yaml', 8],
  // init containers are entities too: the same checks, and names unique across both lists
  ['init-container-name-clash', 'container name app is already used by deployment.yaml:7', 'app.ctr', 1],
  ['init-containers-not-sequence', 'Pod solo (pod.yaml:1): initContainers must be a sequence', 'pod.yaml', 5],
  [
    'init-ctr-anchor-image',
    'init Container setup (deployment.yaml:7) in Deployment anchor (deployment.yaml:1): image is empty: YAML read &setup as an anchor',
    'deployment.yaml',
    8,
  ],
  // controllers and pods
  ['rc-kind-mismatch', 'rc.yaml holds a Deployment; expected a ReplicationController', 'rc.yaml', 2],
  ['rc-no-containers', 'ReplicationController app (rc.yaml:1): has no containers', 'rc.yaml', 1],
  ['pod-no-containers', 'Pod lonely (pod.yaml:1): has no containers', 'pod.yaml', 1],
  [
    'both-define-containers',
    'both rc.yaml:1 (its pod template) and pod.yaml:1 define containers',
    'pod.yaml',
    1,
  ],
  ['metadata-not-mapping', 'metadata must be a mapping, found a sequence', 'rc.yaml', 3],
  ['pod-spec-not-mapping', 'spec must be a mapping, found a sequence', 'pod.yaml', 5],
  // objects
  ['object-no-kind', 'object has no kind', '.k2e/x.yaml', 1],
  ['object-no-name', 'ConfigMap object has no metadata.name', '.k2e/x.yaml', 1],
  ['object-no-name', 'Secret object has no metadata.name', '.k2e/x.yaml', 4],
  ['object-no-apiversion', 'ConfigMap object has no apiVersion', '.k2e/x.yaml', 1],
  ['object-scalar', 'expected a Kubernetes object (a mapping), found a string', '.k2e/x.yaml', 1],
  ['list-bad-item', 'ConfigMap object has no metadata.name', '.k2e/list.yaml', 8],
  ['manifest-no-name.yaml', 'Deployment has no metadata.name', 'manifest-no-name.yaml', 6],
  ['manifest-empty.yaml', 'manifest-empty.yaml holds no objects', 'manifest-empty.yaml', 0],
  // duplicates (Deployment)
  [
    'duplicate-object',
    'Service default/web is defined twice: .k2e/a.yaml:1 and .k2e/b.yaml:2',
    '.k2e/b.yaml',
    2,
  ],
  [
    'duplicate-across-dirs',
    'ConfigMap default/shared is defined twice: a/.k2e/cm.yaml:1 and b/.k2e/cm.yaml:1',
    'b/.k2e/cm.yaml',
    1,
  ],
  [
    'duplicate-controller-and-object',
    'ReplicationController default/app is defined twice: rc.yaml:1 and .k2e/rc.yaml:1',
    '.k2e/rc.yaml',
    1,
  ],
  ['manifest-duplicate.yaml', 'ConfigMap x/a is defined twice', 'manifest-duplicate.yaml', 5],
  // YAML traps: values kubectl reads as booleans or numbers in string fields, which the API refuses
  ['trap-env-yes', 'env FOO value yes is read by kubectl as a boolean (true)', 'deployment.yaml', 13],
  ['trap-env-octal', 'env MODE value 0755 is read by kubectl as a number (493)', 'app.ctr', 4],
  ['trap-env-exponent', 'env LIMIT value 1e3 is read by kubectl as a number (1000)', 'app.ctr', 4],
  ['trap-label-bool', 'label enabled true is read by kubectl as a boolean (true)', '.k2e/cm.yaml', 6],
  ['trap-annotation-number', 'annotation revision 3 is read by kubectl as a number (3)', '.k2e/cm.yaml', 6],
  ['trap-configmap-on', 'data debug on is read by kubectl as a boolean (true)', '.k2e/cm.yaml', 6],
  [
    'trap-secret-bigint',
    'stringData account (value not shown) is read by kubectl as a number',
    '.k2e/secret.yaml',
    6,
  ],
  ['trap-command-no', 'command[1] no is read by kubectl as a boolean (false)', 'app.ctr', 4],
  [
    'trap-args-float',
    'args[1] 1.10 is read by kubectl as a number (1.1), where the API wants a string; quote it: "1.10"',
    'app.ctr',
    2,
  ],
  ['trap-rc-selector', 'selector version 2 is read by kubectl as a number (2)', 'rc.yaml', 7],
  ['trap-template-label', 'label canary off is read by kubectl as a boolean (false)', 'deployment.yaml', 9],
];

async function issuesOf(fixture: string): Promise<InputError> {
  const path = `test/fixtures/bad/${fixture}`;
  const input = /\.(ya?ml|json)$/.test(fixture) ? new ManifestInput(path) : new DirectoryInput(path);
  try {
    deploymentOf(await input.entity(), { namespace: 'default' });
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error(`${fixture} was accepted`);
}

test('the corpus has 40+ cases', () => {
  expect(new Set(CASES.map((c) => c[0])).size).toBeGreaterThanOrEqual(40);
});

test.each(CASES)('%s: %s (%s:%i)', async (fixture, fragment, file, line) => {
  const error = await issuesOf(fixture);
  const matching = error.issues.filter((i) => formatIssue(i).includes(fragment));
  expect(
    matching.map((i) => `${i.source.file}:${i.source.line}`),
    error.message,
  ).toContain(`${file}:${line}`);
  expect(matching.every((i) => i.severity === 'error')).toBe(true);
  // The thrown message lists the issue, so a user sees it without digging.
  expect(error.message).toContain(fragment.split(': ').pop());
});

test('a container error is not repeated as "has no containers"', async () => {
  const error = await issuesOf('ctr-no-image');
  expect(error.issues).toHaveLength(1);
});

test('all errors of an input are collected', async () => {
  const error = await issuesOf('object-no-name');
  expect(error.issues.filter((i) => i.severity === 'error')).toHaveLength(2);
  expect(error.message).toMatch(/^2 errors in the input:/);
});
