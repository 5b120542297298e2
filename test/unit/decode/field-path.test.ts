import { describe, expect, test } from 'vitest';
import { decodeText } from '../../../src/decode/decode.js';
import { fieldPathsIn, lineOfField, parseFieldPath } from '../../../src/decode/field-path.js';

describe('fieldPathsIn: the fields a server message names', () => {
  test.each([
    [
      'strict decoding (field.Path notation)',
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagee"',
      [
        [
          { key: 'spec' },
          { key: 'template' },
          { key: 'spec' },
          { key: 'containers' },
          { index: 0 },
          { key: 'imagee' },
        ],
      ],
    ],
    [
      'server-side apply (structured-merge-diff notation, list items by key)',
      'failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="web"].imagee: field not declared in schema',
      [
        [
          { key: 'spec' },
          { key: 'template' },
          { key: 'spec' },
          { key: 'containers' },
          { select: { name: 'web' } },
          { key: 'imagee' },
        ],
      ],
    ],
    [
      'validation, several fields and the causes spread appends',
      'Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.spec.containers[0].image: Required value] [spec.replicas: Invalid value: -1: must be greater than or equal to 0]',
      [
        [{ key: 'spec' }, { key: 'replicas' }],
        [
          { key: 'spec' },
          { key: 'template' },
          { key: 'spec' },
          { key: 'containers' },
          { index: 0 },
          { key: 'image' },
        ],
      ],
    ],
    ['a message naming no field', 'namespaces "shop" not found', []],
    ['a forbidden write', 'deployments.apps "web" is forbidden: User "x" cannot patch resource', []],
  ])('%s', (_name, message, paths) => {
    expect(fieldPathsIn(message)).toEqual(paths);
  });

  test('brackets: an index, key fields (JSON values), a set item, a map key', () => {
    expect(parseFieldPath('.spec.ports[containerPort=80,protocol="TCP"].name')).toEqual([
      { key: 'spec' },
      { key: 'ports' },
      { select: { containerPort: 80, protocol: 'TCP' } },
      { key: 'name' },
    ]);
    expect(parseFieldPath('.metadata.finalizers[="a:b"]')).toEqual([
      { key: 'metadata' },
      { key: 'finalizers' },
      { value: 'a:b' },
    ]);
    expect(parseFieldPath('metadata.labels[app.kubernetes.io/name]')).toEqual([
      { key: 'metadata' },
      { key: 'labels' },
      { key: 'app.kubernetes.io/name' },
    ]);
  });
});

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          imagee: nginx
          ports:
            - containerPort: 80
              protocol: TCP
            - containerPort: 81
              name: metrics
`;

const value = () => decodeText('deployment.yaml', DEPLOYMENT).values[0]!;

describe('lineOfField: the line of the field in its file', () => {
  test.each([
    ['a key', '.spec.replicas: x', 6],
    [
      'an unknown field of a container, by index',
      'unknown field "spec.template.spec.containers[0].imagee"',
      11,
    ],
    ['an unknown field of a container, by name', '.spec.template.spec.containers[name="web"].imagee: x', 11],
    [
      'a port by its key fields',
      '.spec.template.spec.containers[name="web"].ports[containerPort=81,protocol="TCP"].name: x',
      16,
    ],
    [
      'a missing field: its deepest ancestor in the file',
      'spec.template.spec.containers[0].image: Required value',
      10,
    ],
    ['a path the file does not hold at all: the object', 'unknown field "status.x"', 1],
  ])('%s', (_name, message, line) => {
    const v = value();
    const sent = structuredClone(v.value) as Record<string, unknown>;
    // The port's protocol is defaulted in what was sent; the file does not say it.
    const [steps] = fieldPathsIn(message);
    expect(lineOfField(v, sent, steps!)).toBe(line);
  });

  test('an index of the object as sent, where spread put a container before the one in the file, finds it by name', () => {
    const v = value();
    const sent = structuredClone(v.value) as { spec: { template: { spec: { containers: unknown[] } } } };
    sent.spec.template.spec.containers.unshift({ name: 'sidecar', image: 'x' });
    const [steps] = fieldPathsIn('unknown field "spec.template.spec.containers[1].imagee"');
    expect(lineOfField(v, sent, steps!)).toBe(11);
  });
});

test('a field whose value is a block mapping is placed at its key, not at the first line of its value', () => {
  const v = decodeText(
    'svc.yaml',
    'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  selectr:\n    app: web\n',
  ).values[0]!;
  const [steps] = fieldPathsIn('.spec.selectr: field not declared in schema');
  expect(lineOfField(v, v.value, steps!)).toBe(5);
  // Without the nodes (a value kept with its lines only), the value's first line.
  expect(lineOfField(v.compact(), v.value, steps!)).toBe(6);
});
