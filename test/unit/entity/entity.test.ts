import { describe, expect, test } from 'vitest';
import { IssueList } from '../../../src/base/source.js';
import { decodeText } from '../../../src/decode/decode.js';
import {
  buildApplication,
  type Controller,
  Image,
  isDnsLabel,
  newEntity,
  toDnsLabel,
} from '../../../src/entity/index.js';

const decoded = (text: string, file = 'f.yaml') => {
  const v = decodeText(file, text).values[0];
  if (!v) throw new Error('nothing decoded');
  return v;
};

describe('toDnsLabel', () => {
  test.each([
    ['web', 'web'],
    ['Web_App Service', 'web-app-service'],
    ['--x--', 'x'],
    ['My.Worker', 'my-worker'],
    ['___', 'app'],
    ['äöü-api', 'api'],
  ])('%s → %s', (name, label) => {
    expect(toDnsLabel(name)).toBe(label);
    expect(isDnsLabel(label)).toBe(true);
  });

  test('long names are cut to 63 with a hash of the whole name, so they stay distinct', () => {
    const a = toDnsLabel(`${'x'.repeat(70)}-a`);
    const b = toDnsLabel(`${'x'.repeat(70)}-b`);
    expect(a).toHaveLength(63);
    expect(a).not.toBe(b);
    expect(isDnsLabel(a)).toBe(true);
    expect(toDnsLabel(`${'x'.repeat(70)}-a`)).toBe(a);
  });
});

describe('Image', () => {
  test.each([
    ['nginx', undefined, 'nginx', undefined, undefined],
    ['nginx:1.27', undefined, 'nginx', '1.27', undefined],
    ['localhost:5000/web:dev', 'localhost:5000', 'web', 'dev', undefined],
    ['ghcr.io/org/app@sha256:abc', 'ghcr.io', 'org/app', undefined, 'sha256:abc'],
    ['&web', undefined, 'web', undefined, undefined],
    ['&registry.local/team/web:v2', 'registry.local', 'team/web', 'v2', undefined],
  ])('%s', (raw, registry, repository, tag, digest) => {
    const build = raw.startsWith('&')
      ? { contextDir: '.', declaredIn: { file: 'a.ctr', line: 1 } }
      : undefined;
    const image = new Image(raw, { file: 'a.ctr', line: 1 }, build);
    expect([image.registry, image.repository, image.tag, image.digest]).toEqual([
      registry,
      repository,
      tag,
      digest,
    ]);
    expect(image.reference).toBe(raw.replace(/^&/, ''));
    expect(image.build).toEqual(build);
  });
});

describe('newEntity, the shared constructor', () => {
  test('defaults kind, apiVersion and name from the file convention; deep-copies the input', () => {
    const value = decoded('spec:\n  replicas: 1\n');
    const issues = new IssueList();
    const rc = newEntity('ReplicationController', value, { dir: '.', defaultName: 'site' }, issues);
    expect(issues.issues).toEqual([]);
    expect(rc?.object).toMatchObject({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'site' },
    });
    expect(Object.keys(rc?.object ?? {})).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    (rc?.object.spec as { replicas: number }).replicas = 5;
    expect(value.value).toEqual({ spec: { replicas: 1 } });
  });

  test.each([
    ['a scalar', 'hello\n', /^expected a Deployment \(a mapping\), found a string of 5 characters \(a file/],
    ['a secret in a .ctr', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\n', /found a string of 35 characters \(/],
    ['an empty mapping', '{}\n', /Deployment is empty/],
    ['another kind', 'kind: Service\n', /holds a Service; expected a Deployment/],
    ['a bad metadata', 'metadata: 3\n', /metadata must be a mapping/],
    ['no name and no default', 'spec: {}\n', /has no metadata.name/],
  ])('rejects %s', (_, text, message) => {
    const issues = new IssueList();
    expect(newEntity('Deployment', decoded(text), { dir: '.' }, issues)).toBeUndefined();
    expect(issues.issues.map((i) => i.message).join('\n')).toMatch(message);
  });

  test('containers of a template become entities with their own lines; & marks a build in the file directory', () => {
    const text = [
      'metadata: {name: d}',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: a',
      '          image: "&a:dev"',
      '        - name: b',
      '          image: redis:7',
    ].join('\n');
    const issues = new IssueList();
    const d = newEntity(
      'Deployment',
      decoded(text, 'svc/deployment.yaml'),
      { dir: 'svc' },
      issues,
    ) as Controller;
    expect(issues.issues).toEqual([]);
    expect(d.pod.containers.map((c) => [c.name, c.source.line, c.image.build?.contextDir])).toEqual([
      ['a', 6, 'svc'],
      ['b', 8, undefined],
    ]);
    expect(d.pod.containers[0]?.image.build?.declaredIn).toEqual({ file: 'svc/deployment.yaml', line: 7 });
  });
});

describe('selector defaults', () => {
  const build = (file: string, text: string) => {
    const issues = new IssueList();
    const app = buildApplication(
      'app',
      [
        {
          dir: '.',
          name: 'app',
          entities: [
            { kind: file === 'rc' ? 'ReplicationController' : 'Deployment', value: decoded(text), stem: '' },
          ],
          containers: [{ value: decoded('image: x\n', 'c.ctr'), stem: 'c' }],
          objects: [],
        },
      ],
      issues,
    );
    expect(issues.issues).toEqual([]);
    return (app.entities[0] as Controller).toObject() as unknown as {
      spec: { selector: unknown; template: { metadata: { labels: unknown } } };
    };
  };

  test.each([
    ['rc', 'metadata: {name: web}\n', { app: 'web' }, { app: 'web' }],
    ['rc', 'metadata: {name: web}\nspec: {selector: {k: v}}\n', { k: 'v' }, { k: 'v' }],
    ['rc', 'metadata: {name: web}\nspec: {template: {metadata: {labels: {t: l}}}}\n', { t: 'l' }, { t: 'l' }],
    ['deployment', 'metadata: {name: web}\n', { matchLabels: { app: 'web' } }, { app: 'web' }],
    [
      'deployment',
      'metadata: {name: web}\nspec: {selector: {matchLabels: {k: v}}}\n',
      { matchLabels: { k: 'v' } },
      { k: 'v' },
    ],
    [
      'deployment',
      'metadata: {name: web}\nspec: {template: {metadata: {labels: {t: l}}}}\n',
      { matchLabels: { t: 'l' } },
      { t: 'l' },
    ],
  ])('%s %j → selector %j, template labels %j', (file, text, selector, labels) => {
    const object = build(file, text);
    expect(object.spec.selector).toEqual(selector);
    expect(object.spec.template.metadata.labels).toEqual(labels);
  });
});
