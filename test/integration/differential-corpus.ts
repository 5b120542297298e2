// The corpus of the differential test (differential.itg.test.ts): cases that are one or more
// successive states of an objects folder, run through `kubectl apply --server-side` and `spread
// deploy`. Object names start with the case id, so one state can hold many cases and a disagreement
// is still reported per case and object.

/** One file of a state: text (written as UTF-8) or exact bytes (CRLF, BOM, UTF-16…). */
export type FileContent = string | Uint8Array;

/** One directory state: file name in the objects folder → content. */
export type State = Readonly<Record<string, FileContent>>;

export interface Case {
  /** DNS-label prefix of every object name of the case, and of its file names. */
  readonly id: string;
  /** What the case exercises. */
  readonly title: string;
  /** Successive states (at least one). */
  readonly states: readonly State[];
  /**
   * kubectl fails on the case (its only state), so spread must fail too, naming a file and line of
   * the case. Failing cases run one at a time: kubectl applies the valid objects of a failing
   * directory, spread none (see the intended differences).
   */
  readonly fails?: boolean;
  /** The key of the intended difference this case shows (INTENDED in the test), if any. */
  readonly intended?: string;
}

/**
 * The intended differences: where spread does not do what kubectl does, on purpose. Each is shown by
 * the cases whose `intended` names it, and checked to happen as described (docs/inputs.md shows this table).
 */
export const INTENDED: Readonly<
  Record<
    string,
    {
      readonly check: 'spread-refuses' | 'spread-accepts' | 'stored-differs' | 'kubectl-partial';
      readonly reason: string;
      /** The difference is only with Kubernetes minors below this one (its kubectl); later ones agree. */
      readonly belowMinor?: number;
    }
  >
> = {
  'duplicate-key': {
    check: 'spread-refuses',
    reason:
      'A mapping key written twice (also `1` and `"1"`, or `yes` and `on`, which give one JSON key): kubectl silently keeps one of them, spread refuses it at its line.',
  },
  'merge-before-key': {
    check: 'spread-refuses',
    reason:
      'A key written before a `<<` merge that sets it too: kubectl (go-yaml v2) keeps the merged value, the YAML merge-key spec the written one; spread asks to write `<<` first.',
  },
  'not-utf8': {
    check: 'spread-refuses',
    reason:
      'Bytes that are not UTF-8 (a Latin-1 file): kubectl stores each as U+FFFD, damaging the text; spread refuses the file.',
  },
  'nested-list': {
    check: 'spread-accepts',
    reason:
      'A `kind: List` inside the items of a List: kubectl fails ("is not a list: no Items field"), spread flattens it as it flattens the outer List.',
  },
  'negative-zero-key': {
    check: 'stored-differs',
    reason:
      'The mapping key `-0.0`: kubectl makes it the key "-0", spread "0" (a JavaScript Map key cannot be -0).',
  },
  'exported-manifest': {
    check: 'spread-accepts',
    reason:
      'A manifest exported with `kubectl get -o yaml` (uid, resourceVersion, creationTimestamp, managedFields…): kubectl fails ("metadata.managedFields must be nil"; without it, on the stale uid and resourceVersion), spread drops what the server populates, with one warning listing the files.',
  },
  'generate-name': {
    check: 'spread-accepts',
    reason:
      'An object with `metadata.generateName` and no name (a smoke-test Job): `kubectl apply` refuses it ("cannot use generate name with apply"; only `kubectl create` takes it), spread creates a new one per deploy, labelled `spread.rsprd.com/generate-name`, and prunes those of earlier deploys.',
  },
  'null-label-kubectl-1-30': {
    check: 'stored-differs',
    belowMinor: 31,
    reason:
      'Kubernetes 1.30 only: a label whose value is null (`legacy: ~`) makes kubectl 1.30 store the object with none of its labels (its ApplySet labelling reads the labels as strings and drops them all); spread stores the other labels and the null one as "", as kubectl 1.31 and later do.',
  },
  'invalid-writes-nothing': {
    check: 'kubectl-partial',
    reason:
      'A directory with an invalid object: kubectl applies the valid objects and reports the others, spread checks every object first and writes nothing.',
  },
};

/** The custom resource every scalar probe is: a kind that stores any JSON as it is sent. */
export const PROBE_GROUP = 'differential.spread.test';
export const PROBE_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: probes.${PROBE_GROUP}
spec:
  group: ${PROBE_GROUP}
  names: {kind: Probe, plural: probes, singular: probe, listKind: ProbeList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

/**
 * Every YAML 1.1 scalar form the differential test sends as a value and as a mapping key:
 * octal, hex, binary, `_`, sexagesimal, booleans in every spelling, nulls, `.inf`/`.nan`, big and
 * negative integers, floats with exponents, timestamps, and strings that look like numbers.
 */
export const SCALAR_FORMS: readonly string[] = [
  '0400',
  '0755',
  '0644',
  '0o17',
  '0O17',
  '0x1F',
  '0X1F',
  '-0x1F',
  '0x_1F',
  '0b101',
  '0B101',
  '-0b101',
  '08',
  '0128',
  '0123',
  '-0123',
  '00',
  '0',
  '-0',
  '+12',
  '-_1',
  '1_000',
  '1__2',
  '0_7',
  '1:20',
  '1:20.5',
  '-1:30',
  '190:20:30',
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
  'yEs',
  'oN',
  '~',
  'null',
  'Null',
  'NULL',
  '.inf',
  '-.inf',
  '+.inf',
  '.Inf',
  '.INF',
  '.nan',
  '.NaN',
  '.NAN',
  '9007199254740993',
  '9007199254740992',
  '-9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551615',
  '18446744073709551616',
  '123456789012345678901234567890',
  '0xFFFFFFFFFFFFFFFF',
  '0xFFFFFFFFFFFFFFFFFF',
  '1e3',
  '1E3',
  '+1e3',
  '1.e3',
  '1.5E-7',
  '1e21',
  '1e6',
  '1e-7',
  '2e+3',
  '1e400',
  '-1e400',
  '6.02e23',
  '1.0',
  '1.',
  '.5',
  '-.5',
  '.5e3',
  '0.1',
  '3.14159265358979323846',
  '123456789.0',
  '1_0.5',
  '1234567.0',
  '-0.0',
  '0.0001',
  '0.00001',
  '2001-12-14t21:59:43.10-05:00',
  '2001-12-14 21:59:43.10',
  '2001-12-14',
  '2002-12-14T21:59:43Z',
  'e5',
  '.',
  '12e',
  '0x',
  '0b',
  '0o8',
  '._5',
  '1e1_0',
  '07.5',
  '1.2.3',
  'v1',
  '0755abc',
  '=',
  '<<x',
];

/** A form as a file-name and object-name safe token. */
function token(i: number): string {
  return String(i).padStart(3, '0');
}

function probe(name: string, body: string): string {
  return `apiVersion: ${PROBE_GROUP}/v1\nkind: Probe\nmetadata:\n  name: ${name}\n${body}`;
}

/** The forms kubectl refuses as values: JSON has no Infinity or NaN. */
const NOT_JSON_VALUES = new Set(['.inf', '-.inf', '+.inf', '.Inf', '.INF', '.nan', '.NaN', '.NAN']);
/** The forms kubectl refuses as mapping keys: null and uint64 keys. */
const NOT_JSON_KEYS = new Set([
  '~',
  'null',
  'Null',
  'NULL',
  '9223372036854775808',
  '18446744073709551615',
  '0xFFFFFFFFFFFFFFFF',
]);

function scalarCases(): Case[] {
  const cases: Case[] = [];
  SCALAR_FORMS.forEach((form, i) => {
    const v = `sv-${token(i)}`;
    cases.push({
      id: v,
      title: `value ${form}`,
      states: [{ [`${v}.yaml`]: probe(v, `spec:\n  v: ${form}\n  list: [${form}, x]\n`) }],
      fails: NOT_JSON_VALUES.has(form),
    });
    const k = `sk-${token(i)}`;
    cases.push({
      id: k,
      title: `key ${form}`,
      states: [{ [`${k}.yaml`]: probe(k, `spec:\n  m:\n    ${form}: x\n`) }],
      fails: NOT_JSON_KEYS.has(form),
      ...(form === '-0.0' ? { intended: 'negative-zero-key' } : {}),
    });
  });
  return cases;
}

/** Scalars in typed fields of built-in kinds: labels, annotations, ports, modes, quantities. */
function typedFieldCases(): Case[] {
  const cases: Case[] = [];
  const deployment = (id: string, podSpec: string, meta = '') =>
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${id}
${meta}spec:
  replicas: 0
  selector: {matchLabels: {app: ${id}}}
  template:
    metadata: {labels: {app: ${id}}}
    spec:
${podSpec}`;
  const container = (extra: string) => `      containers:
        - name: c
          image: busybox:1.36
${extra}`;
  const ok = (id: string, title: string, text: string, intended?: string): Case => ({
    id,
    title,
    states: [{ [`${id}.yaml`]: text }],
    ...(intended ? { intended } : {}),
  });
  const fail = (id: string, title: string, text: string): Case => ({
    id,
    title,
    states: [{ [`${id}.yaml`]: text }],
    fails: true,
  });
  const ports = ['0x50', '0o120', '8_0', '0120', '080', '1e3', '443.0'];
  ports.forEach((p, i) => {
    cases.push(
      ok(
        `tp-${i}`,
        `containerPort ${p}`,
        deployment(`tp-${i}`, container(`          ports: [{containerPort: ${p}}]\n`)),
      ),
    );
  });
  cases.push(
    fail(
      'tp-bad',
      'containerPort 1:20 (a string)',
      deployment('tp-bad', container('          ports: [{containerPort: 1:20}]\n')),
    ),
  );
  const modes = ['0400', '0755', '0644', '0o600', '256', '0x1A4'];
  modes.forEach((m, i) => {
    cases.push(
      ok(
        `tm-${i}`,
        `defaultMode ${m}`,
        deployment(
          `tm-${i}`,
          `${container('')}      volumes:
        - name: s
          secret: {secretName: tm-${i}, defaultMode: ${m}}
        - name: c
          configMap: {name: tm-${i}, defaultMode: ${m}, items: [{key: a, path: a, mode: ${m}}]}
`,
        ),
      ),
    );
  });
  cases.push(
    fail(
      'tm-bad',
      'defaultMode 01777 (1023, past 0777)',
      deployment(
        'tm-bad',
        `${container('')}      volumes:\n        - name: s\n          secret: {secretName: x, defaultMode: 01777}\n`,
      ),
    ),
  );
  const quantities = ['1e3', '0.5', '0x10', '1_000', '"1e3"', '1.5e-3', '0400', '100m', '1Gi', '1e-7'];
  quantities.forEach((q, i) => {
    cases.push(
      ok(
        `tq-${i}`,
        `quantity ${q}`,
        deployment(
          `tq-${i}`,
          container(`          resources: {limits: {cpu: ${q}, memory: ${q === '100m' ? '1Gi' : q}}}\n`),
        ),
      ),
    );
  });
  cases.push(
    fail(
      'tq-bad',
      'quantity 1_000m (not a quantity)',
      deployment('tq-bad', container('          resources: {limits: {cpu: 1_000m}}\n')),
    ),
  );
  cases.push(
    fail(
      'tq-inf',
      'quantity .inf',
      deployment('tq-inf', container('          resources: {limits: {cpu: .inf}}\n')),
    ),
  );
  // Labels and annotations: strings pass, null is stored as "", booleans and numbers are refused.
  const cm = (id: string, meta: string, data = '') =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${id}\n${meta}${data}`;
  const labelForms = [
    '"yes"',
    "'0755'",
    '~',
    'null',
    '',
    '"1:20"',
    '1:20',
    '2001-12-14',
    'v1.2',
    '"9007199254740993"',
  ];
  labelForms.forEach((f, i) => {
    // A label value cannot hold ':'.
    if (!f.includes(':'))
      cases.push(
        ok(
          `tl-${i}`,
          `label value ${f || '(empty)'}`,
          cm(`tl-${i}`, `  labels: {legacy: ${f}, app: tl-${i}}\n`),
          ['~', 'null', ''].includes(f) ? 'null-label-kubectl-1-30' : undefined,
        ),
      );
    cases.push(
      ok(`ta-${i}`, `annotation value ${f || '(empty)'}`, cm(`ta-${i}`, `  annotations:\n    note: ${f}\n`)),
    );
    cases.push(
      ok(`td-${i}`, `ConfigMap data value ${f || '(empty)'}`, cm(`td-${i}`, '', `data:\n  k: ${f}\n`)),
    );
  });
  const refused = ['yes', 'on', 'n', 'true', '0755', '1e3', '0x1F', '9007199254740993', '1.5'];
  refused.forEach((f, i) => {
    cases.push(
      fail(`tlx-${i}`, `label value ${f} (not a string)`, cm(`tlx-${i}`, `  labels: {legacy: ${f}}\n`)),
    );
    cases.push(
      fail(`tdx-${i}`, `ConfigMap data value ${f} (not a string)`, cm(`tdx-${i}`, '', `data:\n  k: ${f}\n`)),
    );
  });
  cases.push(
    fail(
      'tex-0',
      'env value yes',
      deployment('tex-0', container('          env: [{name: A, value: yes}]\n')),
    ),
  );
  cases.push(
    ok(
      'te-0',
      'env value ~ (stored as no value)',
      deployment(
        'te-0',
        container('          env: [{name: A, value: ~}, {name: B, value: "0755"}, {name: C}]\n'),
      ),
    ),
  );
  cases.push(
    ok(
      'te-1',
      'args with null and quoted numbers',
      deployment('te-1', container('          args: [a, null, "1e3", "0x1F"]\n')),
    ),
  );
  cases.push(
    ok(
      'tn-0',
      'a big integer in an int64 field',
      deployment('tn-0', `${container('')}      terminationGracePeriodSeconds: 9007199254740993\n`),
    ),
  );

  cases.push(ok('tk-0', 'label key y (the JSON key "true")', cm('tk-0', '  labels: {y: a}\n')));
  cases.push(
    ok(
      'tk-1',
      'data keys 0x1F, 1e3, off ("31", "1000", "false")',
      cm('tk-1', '', 'data:\n  0x1F: a\n  1e3: b\n  off: c\n'),
    ),
  );
  cases.push(
    fail('tk-2', 'data key 1e6 (the JSON key "1e+06", not a valid key)', cm('tk-2', '', 'data:\n  1e6: b\n')),
  );
  return cases;
}

/** Anchors, merge keys, multi-document files, `kind: List`, encodings. */
function structureCases(): Case[] {
  const cm = (name: string, data: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${data}`;
  const enc16 = (text: string, bigEndian: boolean): Uint8Array => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    if (!bigEndian) return le;
    const be = Buffer.from(le);
    for (let i = 0; i < be.length; i += 2) [be[i], be[i + 1]] = [le[i + 1]!, le[i]!];
    return be;
  };
  const one = (id: string, title: string, content: FileContent, extra: Partial<Case> = {}): Case => ({
    id,
    title,
    states: [{ [`${id}.yaml`]: content }],
    ...extra,
  });
  const cases: Case[] = [
    one(
      'st-anchor',
      'anchors and aliases',
      `${cm('st-anchor', 'data: &d\n  a: "1"\n  b: &v "2"\n')}---\n${cm('st-anchor-b', 'data: {c: "3"}\n')}`,
    ),
    one(
      'st-merge',
      '<< merge of one mapping, own keys after it',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: st-merge\n  labels: &l {app: st-merge, tier: web}\n  annotations:\n    <<: *l\n    tier: api\n`,
    ),
    one(
      'st-merge2',
      '<< merge of a sequence: the first mapping wins',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: st-merge2\n  labels: &a {x: "1", y1: "1"}\n  annotations: &b {x: "2", z: "2"}\ndata:\n  <<: [*a, *b]\n  w: "0"\n`,
    ),
    one(
      'st-merge-before',
      'a key before a << that merges it',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: st-merge-before\n  labels: &a {x: "1"}\ndata:\n  x: "0"\n  <<: *a\n`,
      { intended: 'merge-before-key' },
    ),
    one('st-dup', 'a key written twice', cm('st-dup', 'data:\n  a: "1"\n  a: "2"\n'), {
      intended: 'duplicate-key',
    }),
    one('st-dup-json', 'keys 1 and "1"', cm('st-dup-json', 'data:\n  1: a\n  "1": b\n'), {
      intended: 'duplicate-key',
    }),
    one('st-dup-bool', 'keys yes and on (both "true")', cm('st-dup-bool', 'data:\n  yes: a\n  on: b\n'), {
      intended: 'duplicate-key',
    }),
    one(
      'st-multi',
      'multi-document file: comments, empty documents, `...` ends',
      `# head\n---\n${cm('st-multi-a', 'data: {a: b}\n')}...\n---\n# only a comment\n---\n---\n${cm('st-multi-b', 'data: {c: d}\n')}`,
    ),
    one(
      'st-list',
      'kind: List',
      `apiVersion: v1\nkind: List\nitems:\n  - ${cm('st-list-a', 'data: {a: b}\n').replace(/\n(?=.)/g, '\n    ')}  - ${cm('st-list-b', 'data: {c: "0400"}\n').replace(/\n(?=.)/g, '\n    ')}`,
    ),
    one(
      'st-nested-list',
      'a List inside a List',
      `apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: List\n    items:\n      - ${cm('st-nested-list', 'data: {c: "0400"}\n').replace(/\n(?=.)/g, '\n        ')}`,
      { intended: 'nested-list' },
    ),
    one(
      'st-cmlist',
      'kind: ConfigMapList',
      `apiVersion: v1\nkind: ConfigMapList\nitems:\n  - ${cm('st-cmlist', 'data: {a: b}\n').replace(/\n(?=.)/g, '\n    ')}`,
    ),
    one(
      'st-json',
      'a JSON file with big integers',
      `{"apiVersion": "${PROBE_GROUP}/v1", "kind": "Probe", "metadata": {"name": "st-json"}, "spec": {"big": 9007199254740993, "max": 9223372036854775807, "f": 1e3, "o": "0400"}}\n`,
    ),
    one(
      'st-crlf',
      'CRLF line ends',
      Buffer.from(cm('st-crlf', 'data:\n  a: |\n    line1\n    line2\n').replace(/\n/g, '\r\n')),
    ),
    one(
      'st-bom',
      'UTF-8 byte-order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(cm('st-bom', 'data: {a: é}\n'))]),
    ),
    one(
      'st-u16le',
      'UTF-16LE with a BOM',
      enc16(`${cm('st-u16le', 'data: {a: é}\n')}---\n${cm('st-u16le-b', 'data: {b: "0755"}\n')}`, false),
    ),
    one('st-u16be', 'UTF-16BE with a BOM', enc16(cm('st-u16be', 'data: {a: é}\n'), true)),
    one('st-u16nobom', 'UTF-16 without a BOM', Buffer.from(cm('st-u16nobom', 'data: {a: b}\n'), 'utf16le'), {
      fails: true,
    }),
    one(
      'st-exported',
      'a ConfigMap as kubectl get -o yaml prints it',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: st-exported\n  uid: 6a0c3c2e-2f51-4d3c-9a57-3d0e6f1b2c4d\n  resourceVersion: "4711"\n  creationTimestamp: "2026-01-01T00:00:00Z"\n  managedFields:\n  - apiVersion: v1\n    fieldsType: FieldsV1\n    fieldsV1:\n      f:data:\n        f:a: {}\n    manager: kubectl\n    operation: Apply\n    time: "2026-01-01T00:00:00Z"\ndata:\n  a: b\n`,
      { intended: 'exported-manifest' },
    ),
    one(
      'st-generated',
      'an object named by the server (generateName)',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: st-generated-\ndata: {a: b}\n`,
      { intended: 'generate-name' },
    ),
    one(
      'st-latin1',
      'Latin-1 bytes (not UTF-8)',
      Buffer.from(cm('st-latin1', 'data: {a: café}\n'), 'latin1'),
      { intended: 'not-utf8' },
    ),
    one(
      'st-block',
      'block scalars, folding and chomping',
      cm(
        'st-block',
        'data:\n  a: |\n    x\n     y\n  b: >-\n    folded\n    text\n\n    para\n  c: |+\n    keep\n\n  d: "esc \\u00e9 \\t \\x41"\n',
      ),
    ),
    one(
      'st-tags',
      'explicit tags: !!str, !!int, !!binary',
      `${probe('st-tags', 'spec:\n  s: !!str 0400\n  i: !!int "12"\n  b: !!binary aGVsbG8=\n  f: !!float 1\n')}`,
    ),
    one('st-syntax', 'a YAML syntax error', cm('st-syntax', 'data:\n  a: [b\n'), { fails: true }),
    one('st-notmap', 'a document that is a sequence', '- a\n- b\n', { fails: true }),
    one('st-tab', 'a tab in the indentation', cm('st-tab', 'data:\n\ta: b\n'), { fails: true }),
    {
      id: 'st-partial',
      title: 'a valid and an invalid object',
      states: [
        {
          'st-partial-a.yaml': cm('st-partial-a', 'data: {a: b}\n'),
          'st-partial-b.yaml': cm('st-partial-b', 'data: {a: yes}\n'),
        },
      ],
      fails: true,
      intended: 'invalid-writes-nothing',
    },
  ];
  return cases;
}

/** Successive states that add, remove and rename fields, list entries and objects. */
function evolutionCases(): Case[] {
  const cm = (name: string, data: string, meta = '') =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${meta}${data}`;
  const deploy = (name: string, containers: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 0
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
${containers}`;
  const svc = (name: string, ports: string) =>
    `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  selector: {app: ${name}}\n  ports:\n${ports}`;
  return [
    {
      id: 'ev-cm',
      title: 'ConfigMap keys added, removed, renamed',
      states: [
        { 'ev-cm.yaml': cm('ev-cm', 'data: {a: "1"}\n') },
        { 'ev-cm.yaml': cm('ev-cm', 'data: {a: "1", b: "2"}\n') },
        { 'ev-cm.yaml': cm('ev-cm', 'data: {b: "2"}\n') },
        { 'ev-cm.yaml': cm('ev-cm', 'data: {c: "2"}\n') },
      ],
    },
    {
      id: 'ev-meta',
      title: 'labels and annotations added, changed, removed',
      intended: 'null-label-kubectl-1-30',
      states: [
        { 'ev-meta.yaml': cm('ev-meta', '', '  labels: {a: "1"}\n') },
        { 'ev-meta.yaml': cm('ev-meta', '', '  labels: {a: "2", b: y1}\n  annotations: {n: note}\n') },
        { 'ev-meta.yaml': cm('ev-meta', '', '  labels: {b: y1}\n') },
        { 'ev-meta.yaml': cm('ev-meta', '', '  labels: {legacy: null}\n') },
      ],
    },
    {
      id: 'ev-managed-by',
      title: "a declared app.kubernetes.io/managed-by (a Helm chart's), then another, then none",
      states: [
        {
          'ev-managed-by.yaml': cm(
            'ev-managed-by',
            'data: {a: "1"}\n',
            '  labels: {app.kubernetes.io/managed-by: Helm}\n',
          ),
        },
        {
          'ev-managed-by.yaml': cm(
            'ev-managed-by',
            'data: {a: "1"}\n',
            '  labels: {app.kubernetes.io/managed-by: kustomize}\n',
          ),
        },
        { 'ev-managed-by.yaml': cm('ev-managed-by', 'data: {a: "1"}\n') },
      ],
    },
    {
      id: 'ev-ctr',
      title: 'containers renamed, ports and env entries added, removed, reordered',
      states: [
        {
          'ev-ctr.yaml': deploy(
            'ev-ctr',
            '        - {name: a, image: busybox:1.36, ports: [{containerPort: 80}]}\n',
          ),
        },
        {
          'ev-ctr.yaml': deploy(
            'ev-ctr',
            '        - {name: a, image: busybox:1.36, ports: [{containerPort: 80}, {containerPort: 0x1BB}], env: [{name: A, value: "1"}, {name: B, value: "2"}]}\n',
          ),
        },
        {
          'ev-ctr.yaml': deploy(
            'ev-ctr',
            '        - {name: b, image: busybox:1.36, env: [{name: B, value: "2"}, {name: A, value: "1"}]}\n',
          ),
        },
        {
          'ev-ctr.yaml': deploy(
            'ev-ctr',
            '        - {name: b, image: busybox:1.36}\n        - {name: c, image: busybox:1.36}\n',
          ),
        },
      ],
    },
    {
      id: 'ev-svc',
      title: 'Service ports added, renamed, removed',
      states: [
        { 'ev-svc.yaml': svc('ev-svc', '    - {name: http, port: 80}\n') },
        { 'ev-svc.yaml': svc('ev-svc', '    - {name: http, port: 80}\n    - {name: https, port: 0x1BB}\n') },
        { 'ev-svc.yaml': svc('ev-svc', '    - {name: web, port: 80}\n    - {name: https, port: 443}\n') },
        { 'ev-svc.yaml': svc('ev-svc', '    - {name: https, port: 443}\n') },
      ],
    },
    {
      id: 'ev-obj',
      title: 'objects added, removed (pruned) and renamed',
      states: [
        { 'ev-obj.yaml': cm('ev-obj-a', 'data: {a: b}\n') },
        { 'ev-obj.yaml': `${cm('ev-obj-a', 'data: {a: b}\n')}---\n${cm('ev-obj-b', 'data: {a: b}\n')}` },
        { 'ev-obj.yaml': cm('ev-obj-b', 'data: {a: b}\n') },
        { 'ev-obj.yaml': cm('ev-obj-c', 'data: {a: b}\n') },
      ],
    },
    {
      id: 'ev-move',
      title: 'objects moved between files and a List',
      states: [
        { 'ev-move.yaml': `${cm('ev-move-a', 'data: {a: b}\n')}---\n${cm('ev-move-b', 'data: {c: d}\n')}` },
        {
          'ev-move-1.yaml': cm('ev-move-a', 'data: {a: b}\n'),
          'ev-move-2.json':
            '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ev-move-b"},"data":{"c":"d"}}\n',
        },
        {
          'ev-move-list.yaml': `apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: ev-move-a}, data: {a: b}}\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: ev-move-b}, data: {c: d}}\n`,
        },
      ],
    },
    {
      id: 'ev-probe',
      title: 'nested fields and lists of a custom resource',
      states: [
        { 'ev-probe.yaml': probe('ev-probe', 'spec:\n  a: {b: {c: 1}}\n  l: [1, 2, 3]\n') },
        {
          'ev-probe.yaml': probe(
            'ev-probe',
            'spec:\n  a: {b: {c: 1, d: 0400}}\n  l: [1, 3]\n  n: 9007199254740993\n',
          ),
        },
        { 'ev-probe.yaml': probe('ev-probe', 'spec:\n  a: {e: yes}\n  l: []\n  n: 9007199254740995\n') },
        { 'ev-probe.yaml': probe('ev-probe', 'spec:\n  a: ~\n  n: 9223372036854775807\n') },
      ],
    },
    {
      id: 'ev-anchor',
      title: 'an anchor changed: every alias follows',
      states: [
        {
          'ev-anchor.yaml': cm(
            'ev-anchor',
            'data:\n  a: &v "1"\n  b: *v\n',
            '  labels: &l {x: "1"}\n  annotations: *l\n',
          ),
        },
        {
          'ev-anchor.yaml': cm(
            'ev-anchor',
            'data:\n  a: &v "2"\n  b: *v\n',
            '  labels: &l {x: "2"}\n  annotations: *l\n',
          ),
        },
        { 'ev-anchor.yaml': cm('ev-anchor', 'data:\n  a: "2"\n  b: "3"\n', '  labels: {x: "2"}\n') },
      ],
    },
    {
      id: 'ev-secret',
      title: 'Secret stringData and data changed',
      states: [
        {
          'ev-secret.yaml':
            'apiVersion: v1\nkind: Secret\nmetadata: {name: ev-secret}\nstringData: {a: "0400"}\n',
        },
        {
          'ev-secret.yaml':
            'apiVersion: v1\nkind: Secret\nmetadata: {name: ev-secret}\ndata: {a: MDQwMA==, b: eWVz}\n',
        },
        { 'ev-secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: ev-secret}\ndata: {b: eWVz}\n' },
      ],
    },
    {
      id: 'ev-mode',
      title: 'a volume mode changed from 0644 to 0400',
      states: [
        {
          'ev-mode.yaml': deploy('ev-mode', '        - {name: a, image: busybox:1.36}\n').concat(
            '      volumes: [{name: v, configMap: {name: x, defaultMode: 0644}}]\n',
          ),
        },
        {
          'ev-mode.yaml': deploy('ev-mode', '        - {name: a, image: busybox:1.36}\n').concat(
            '      volumes: [{name: v, configMap: {name: x, defaultMode: 0400}}]\n',
          ),
        },
        { 'ev-mode.yaml': deploy('ev-mode', '        - {name: a, image: busybox:1.36}\n') },
      ],
    },
  ];
}

/** Every case of the corpus, in a fixed order. */
export function corpus(): Case[] {
  return [...scalarCases(), ...typedFieldCases(), ...structureCases(), ...evolutionCases()];
}

/** One state of a plain manifest folder: path relative to the folder (subfolders allowed) → content. */
export type FolderState = Readonly<Record<string, string>>;

/**
 * Successive states of a plain manifest folder (issue 39), compared with `kubectl apply
 * --server-side -f DIR -R`: the convention's `deployment.yaml` beside files the convention does not
 * name (several objects in one, a List, a subfolder); then edits, an added file and object, and
 * dropped ones (a whole file, and one document of a file), which both tools prune.
 */
export function plainFolderStates(): FolderState[] {
  const cm = (name: string, data: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${data}`;
  const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: plain-web
spec:
  replicas: 0
  selector:
    matchLabels: {app: plain-web}
  template:
    metadata:
      labels: {app: plain-web}
    spec:
      containers:
        - name: web
          image: ${image}
`;
  const service = (port: number) =>
    `apiVersion: v1\nkind: Service\nmetadata:\n  name: plain-web\nspec:\n  selector: {app: plain-web}\n  ports:\n    - port: ${port}\n`;
  const account = 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: plain-robot\n';
  const first: FolderState = {
    'deployment.yaml': deployment('nginx:1.27'),
    'web.yaml': `${service(80)}---\n${account}`,
    'configmap.yaml': cm('plain-config', '  mode: "production"\n'),
    'jobs/list.json':
      '{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"plain-list-a"},"data":{"a":"1"}}]}\n',
  };
  const edited: FolderState = {
    ...first,
    'deployment.yaml': deployment('nginx:1.28'),
    'web.yaml': `${service(8080)}---\n${account}`,
    'configmap.yaml': cm('plain-config', '  mode: "staging"\n  extra: "0400"\n'),
  };
  const added: FolderState = {
    ...edited,
    'jobs/list.json':
      '{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"plain-list-a"},"data":{"a":"1"}},{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"plain-list-b"}}]}\n',
    'jobs/deeper/extra.yml': cm('plain-extra', '  on: "yes"\n'),
  };
  const { 'configmap.yaml': _dropped, ...rest } = added;
  const dropped: FolderState = { ...rest, 'web.yaml': service(8080) };
  return [first, edited, added, dropped];
}
