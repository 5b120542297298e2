// The pure parts of the Helm renderer: the argument list (the same for Helm 3 and 4), version
// detection, `# Source:` parsing with the kind-line rule, hook detection, and where a failed
// template's error points. Running Helm itself is tested in test/integration/helm.itg.test.ts.
import { describe, expect, test } from 'vitest';
import {
  chartInfo,
  kubeVersionArg,
  missingDependencies,
  parseHelmVersion,
  templateArgs,
} from '../../../src/input/helm.js';
import {
  documentSpans,
  errorSource,
  isHook,
  linesOfObjects,
  placeLines,
  readHelmOutput,
  sourceFile,
} from '../../../src/input/helm-output.js';

describe('templateArgs', () => {
  test('release, chart, namespace, CRDs, values files before --set, then the capabilities', () => {
    expect(
      templateArgs(
        '/src/chart',
        {
          release: 'web',
          namespace: 'prod',
          values: ['/src/chart/values-prod.yaml'],
          set: ['a.b=1', 'c=x,y'],
        },
        { kubeVersion: 'v1.34.4', apiVersions: ['v1', 'apps/v1', 'apps/v1/Deployment'] },
      ),
    ).toEqual([
      'template',
      'web',
      '/src/chart',
      '--namespace',
      'prod',
      '--include-crds',
      '--values',
      '/src/chart/values-prod.yaml',
      '--set',
      'a.b=1',
      '--set',
      'c=x,y',
      '--kube-version',
      'v1.34.4',
      '--api-versions',
      'v1',
      '--api-versions',
      'apps/v1',
      '--api-versions',
      'apps/v1/Deployment',
    ]);
  });

  test('without a cluster, no --kube-version nor --api-versions: Helm uses its defaults', () => {
    const args = templateArgs('c', { release: 'r', namespace: 'n' }, undefined);
    expect(args).toEqual(['template', 'r', 'c', '--namespace', 'n', '--include-crds']);
  });

  test.each([
    ['v1.34.4', 'v1.34.4'],
    ['v1.30.14-eks-1234', 'v1.30.14-eks-1234'],
    ['v1.31.2+k3s1', 'v1.31.2+k3s1'],
    ['v1.30', undefined],
    ['', undefined],
  ])('kube version %s is passed as %s', (given, arg) => {
    expect(kubeVersionArg(given)).toBe(arg);
  });
});

describe('parseHelmVersion', () => {
  test.each([
    ['v3.21.4', 'v3.21.4', 3],
    ['v4.3.1+g0123abc', 'v4.3.1+g0123abc', 4],
    ['version.BuildInfo{Version:"v3.12.0", GitCommit:""}', 'v3.12.0', 3],
  ])('%s', (output, text, major) => {
    expect(parseHelmVersion(output)).toEqual({ text, major });
  });
  test('no version', () => expect(parseHelmVersion('unknown')).toBeUndefined());
});

describe('Chart.yaml and charts/', () => {
  test('name and dependency names', () => {
    const text =
      'apiVersion: v2\nname: shop\nversion: 1.0.0\ndependencies:\n- name: db\n  version: 1.x\n  repository: oci://r/c\n- name: cache\n';
    expect(chartInfo(text)).toEqual({
      name: 'shop',
      dependencies: ['db', 'cache'],
      localRepositories: [],
      library: false,
    });
    expect(chartInfo('name: common\ntype: library\n').library).toBe(true);
    const local = 'name: web\ndependencies:\n- name: common\n  repository: file://../common\n';
    expect(chartInfo(local).localRepositories).toEqual(['../common']);
  });
  test('a dependency is vendored as a folder or an archive', () => {
    expect(missingDependencies(['db', 'cache', 'queue'], ['db', 'cache-1.2.0.tgz', 'queue-ui'])).toEqual([
      'queue',
    ]);
  });
});

const OUTPUT = `---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
---
# Source: shop/charts/db/templates/db.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: db
---
# Source: shop/templates/migrate.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: busybox}]
`;

describe('reading helm template output', () => {
  test('# Source: paths lose the chart name and are placed under the chart folder', () => {
    expect(sourceFile('shop/templates/web.yaml', 'shop', 'deploy/shop')).toBe(
      'deploy/shop/templates/web.yaml',
    );
    expect(sourceFile('shop/charts/db/templates/x.yaml', 'shop', '.')).toBe('charts/db/templates/x.yaml');
    expect(documentSpans(OUTPUT).map((s) => s.source)).toEqual([
      undefined,
      'shop/templates/service.yaml',
      'shop/charts/db/templates/db.yaml',
      'shop/templates/migrate.yaml',
    ]);
  });

  test('objects with their template files; hooks apart', () => {
    const out = readHelmOutput(OUTPUT, 'shop', 'k8s/shop');
    expect(out.issues).toEqual([]);
    expect(out.objects.map((o) => [(o.value as { kind: string }).kind, o.source.file])).toEqual([
      ['Service', 'k8s/shop/templates/service.yaml'],
      ['ConfigMap', 'k8s/shop/charts/db/templates/db.yaml'],
    ]);
    expect(out.hooks.map((o) => o.source.file)).toEqual(['k8s/shop/templates/migrate.yaml']);
  });

  test('a YAML trap in the output is an error at the template that printed it', () => {
    const text =
      '---\n# Source: shop/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    on: yes\n';
    const out = readHelmOutput(text, 'shop', '.');
    expect(out.issues.length).toBeGreaterThan(0);
    expect(out.issues[0]?.source).toEqual({ file: 'templates/cm.yaml', line: 0 });
  });

  test.each([
    [{ metadata: { annotations: { 'helm.sh/hook': 'test' } } }, true],
    [{ metadata: { annotations: { 'helm.sh/hook-weight': '1' } } }, false],
    [{ metadata: {} }, false],
  ])('isHook %j', (value, hook) => expect(isHook(value)).toBe(hook));
});

describe('the line of a chart object: its document in the template', () => {
  const TEMPLATE = `{{- if .Values.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
---
apiVersion: v1
kind: "Service"
`;
  const o = (kind: string, name?: string) => ({ kind, name });
  test("each object at its document's first line, not its kind: line", () => {
    expect(linesOfObjects(TEMPLATE, [o('Deployment', 'r'), o('Service', 'r')])).toEqual([2, 7]);
  });
  test('fewer objects (a conditional): each at the only document of its kind', () => {
    expect(linesOfObjects(TEMPLATE, [o('Service')])).toEqual([7]);
  });
  // /tmp/breaker-chart's templates/hooks.yaml as Helm prints it: sorted by kind, each kind's objects
  // in the template's order.
  const HOOKS = [
    ['Secret', 'gen-password', 'pre-install'],
    ['Job', 'migrate', 'pre-install,pre-upgrade'],
    ['Job', 'smoke', 'post-install'],
    ['Pod', 'test-conn', 'test'],
    ['ConfigMap', 'weird-weight', 'pre-upgrade'],
    ['ConfigMap', 'mixed', 'pre-install'],
    ['ConfigMap', 'argo-skip', 'pre-install'],
  ]
    .map(
      ([kind, name, hook]) =>
        `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  annotations:\n    helm.sh/hook: ${hook}\n`,
    )
    .join('---\n');
  test('same-kind documents of one template, in the order Helm prints them: each at its own line', () => {
    const printed = [
      o('Secret', 'gen-password'),
      o('ConfigMap', 'weird-weight'),
      o('ConfigMap', 'mixed'),
      o('ConfigMap', 'argo-skip'),
      o('Pod', 'test-conn'),
      o('Job', 'migrate'),
      o('Job', 'smoke'),
    ];
    expect(linesOfObjects(HOOKS, printed)).toEqual([1, 29, 36, 43, 22, 8, 15]);
    // Names written by a template: the k-th object of a kind at the k-th document of it.
    const unnamed = HOOKS.replace(/name: (migrate|smoke)/g, 'name: {{ .Release.Name }}-$1');
    expect(linesOfObjects(unnamed, [o('Job', 'r-migrate'), o('Job', 'r-smoke')])).toEqual([8, 15]);
    // A condition left one out and the names are templated: unknown rather than a wrong line.
    expect(linesOfObjects(unnamed, [o('Job', 'r-smoke')])).toEqual([0]);
    // With a literal name, found all the same.
    expect(linesOfObjects(HOOKS, [o('Job', 'smoke')])).toEqual([15]);
  });
  test('a flow-style metadata names the document too', () => {
    const text =
      'kind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: "b", labels: {x: y}}\n';
    expect(linesOfObjects(text, [o('ConfigMap', 'b')])).toEqual([4]);
  });
  test('a loop: every object at its document; a kind from a value or two documents of a kind: 0', () => {
    const loop = '{{- range .Values.maps }}\n---\nkind: ConfigMap\n{{- end }}\nkind: {{ .Values.kind }}\n';
    expect(linesOfObjects(loop, [o('ConfigMap'), o('ConfigMap'), o('Secret')])).toEqual([3, 3, 0]);
    expect(linesOfObjects('kind: Secret\n---\nkind: Secret\n', [o('Secret')])).toEqual([0]);
  });
  test('nested kind: keys (a list item, a field) do not count', () => {
    expect(linesOfObjects('kind: Role\nrules:\n  - kind: x\nsubjects:\n- kind: User\n', [o('Role')])).toEqual(
      [1],
    );
  });
  test('placeLines reads each template once; a file not on disk keeps 0', () => {
    const objects = [
      { value: { kind: 'Deployment' }, source: { file: 'c/templates/web.yaml', line: 0 } },
      { value: { kind: 'ConfigMap' }, source: { file: 'c/charts/db-1.0.0.tgz/templates/x.yaml', line: 0 } },
      { value: { kind: 'Service' }, source: { file: 'c/templates/web.yaml', line: 0 } },
    ];
    const placed = placeLines(objects, (f) => (f === 'c/templates/web.yaml' ? TEMPLATE : undefined));
    expect(placed.map((o) => o.source.line)).toEqual([2, 0, 7]);
  });
});

describe('errorSource', () => {
  test.each([
    [
      'Error: template: shop/templates/web.yaml:12:3: executing "shop/templates/web.yaml" at <.Values.x.y>: nil pointer',
      { file: 'k/templates/web.yaml', line: 12 },
    ],
    [
      'Error: parse error at (shop/templates/_helpers.tpl:7): unexpected "}" in operand',
      { file: 'k/templates/_helpers.tpl', line: 7 },
    ],
    [
      'Error: YAML parse error on shop/templates/cm.yaml: error converting YAML to JSON: yaml: line 4',
      { file: 'k/templates/cm.yaml', line: 0 },
    ],
    ["Error: values don't meet the specifications of the schema(s)", undefined],
  ])('%s', (stderr, source) => {
    expect(errorSource(stderr, 'shop', 'k')).toEqual(source);
  });
});
