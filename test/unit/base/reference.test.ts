import { describe, expect, test } from 'vitest';
import {
  digestProblem,
  dnsLabel,
  familiarName,
  formatReference,
  ImageReferenceError,
  namesRegistry,
  parseReference,
  splitReference,
} from '../../../src/base/reference.js';

const D = `sha256:${'a'.repeat(64)}`;

describe('parseReference: valid references, normalised as docker pull does', () => {
  test.each([
    // input, domain, path, tag, digest, familiar
    ['nginx', 'docker.io', 'library/nginx', undefined, undefined, 'nginx'],
    ['nginx:1.27', 'docker.io', 'library/nginx', '1.27', undefined, 'nginx:1.27'],
    ['docker.io/nginx', 'docker.io', 'library/nginx', undefined, undefined, 'nginx'],
    ['docker.io/library/nginx:latest', 'docker.io', 'library/nginx', 'latest', undefined, 'nginx:latest'],
    ['index.docker.io/bitnami/redis', 'docker.io', 'bitnami/redis', undefined, undefined, 'bitnami/redis'],
    ['bitnami/redis:7', 'docker.io', 'bitnami/redis', '7', undefined, 'bitnami/redis:7'],
    ['library/a/b', 'docker.io', 'library/a/b', undefined, undefined, 'library/a/b'],
    ['localhost/app', 'localhost', 'app', undefined, undefined, 'localhost/app'],
    ['localhost:5000/app', 'localhost:5000', 'app', undefined, undefined, 'localhost:5000/app'],
    [
      'localhost:5000/team-a/web:1f2e3d4',
      'localhost:5000',
      'team-a/web',
      '1f2e3d4',
      undefined,
      'localhost:5000/team-a/web:1f2e3d4',
    ],
    [
      'ghcr.io/org/sub/app:v1.2.3-rc_1',
      'ghcr.io',
      'org/sub/app',
      'v1.2.3-rc_1',
      undefined,
      'ghcr.io/org/sub/app:v1.2.3-rc_1',
    ],
    [`nginx@${D}`, 'docker.io', 'library/nginx', undefined, D, `nginx@${D}`],
    [`nginx:1.27@${D}`, 'docker.io', 'library/nginx', '1.27', D, `nginx:1.27@${D}`],
    [`127.0.0.1:5000/a/b:t@${D}`, '127.0.0.1:5000', 'a/b', 't', D, `127.0.0.1:5000/a/b:t@${D}`],
    ['[::1]:5000/app', '[::1]:5000', 'app', undefined, undefined, '[::1]:5000/app'],
    [
      'my-registry.example.com:443/a__b/c.d/e--f',
      'my-registry.example.com:443',
      'a__b/c.d/e--f',
      undefined,
      undefined,
      'my-registry.example.com:443/a__b/c.d/e--f',
    ],
    ['Registry.Example/app', 'Registry.Example', 'app', undefined, undefined, 'Registry.Example/app'],
    ['a:_tag', 'docker.io', 'library/a', '_tag', undefined, 'a:_tag'],
    [`a:${'t'.repeat(128)}`, 'docker.io', 'library/a', 't'.repeat(128), undefined, `a:${'t'.repeat(128)}`],
  ])('%s', (input, domain, path, tag, digest, familiar) => {
    const ref = parseReference(input);
    expect(ref).toEqual({ domain, path, tag, digest });
    expect(familiarName(ref)).toBe(familiar);
    // The round trip through both string forms is lossless.
    expect(parseReference(formatReference(ref))).toEqual(ref);
    expect(parseReference(familiarName(ref))).toEqual(ref);
  });

  test('canonical form spells Docker Hub out', () => {
    expect(formatReference(parseReference('nginx:1'))).toBe('docker.io/library/nginx:1');
    expect(formatReference(parseReference('localhost:5000/x'))).toBe('localhost:5000/x');
  });
});

describe('parseReference: invalid references', () => {
  test.each([
    ['', 'empty'],
    ['Nginx', 'must be lowercase'],
    ['docker.io/Library/nginx', 'must be lowercase'],
    ['localhost:5000/App', 'must be lowercase'],
    ['nginx:', 'tag after ":" is empty'],
    ['nginx:.dot', 'tag ".dot" is invalid'],
    ['nginx:-dash', 'tag "-dash" is invalid'],
    [`nginx:${'t'.repeat(129)}`, 'is invalid'],
    ['nginx@', 'digest after "@" is empty'],
    ['nginx@sha256:abc', 'sha256 digest is 64 lowercase hex'],
    [`nginx@sha256:${'A'.repeat(64)}`, '64 lowercase hex'],
    [`nginx@md5:${'a'.repeat(32)}`, 'not supported'],
    ['nginx@latest', 'not algorithm:hex'],
    ['ngi nx', 'whitespace'],
    ['nginx!', 'path component "nginx!" is invalid'],
    ['-nginx', 'path component "-nginx" is invalid'],
    ['a//b', 'empty path component'],
    ['a/', 'empty path component'],
    ['a..b', 'is invalid'],
    ['a___b', 'is invalid'],
    ['localhost:5000/', 'repository name is empty'],
    [':tag', 'repository name is empty'],
    ['-bad-.host:5000/app', 'registry host "-bad-.host:5000" is invalid'],
    ['host:port/app', 'registry host "host:port" is invalid'],
    ['a'.repeat(64).replace(/a/g, 'f'), 'image ID'],
    [`r.io/${'a'.repeat(260)}`, 'longer than 255'],
  ])('%j → %s', (input, message) => {
    expect(() => parseReference(input)).toThrow(ImageReferenceError);
    expect(() => parseReference(input)).toThrow(message);
  });
});

describe('digestProblem', () => {
  test.each([
    [D, undefined],
    [`sha512:${'0'.repeat(128)}`, undefined],
    [`sha384:${'0'.repeat(96)}`, undefined],
    [`sha256:${'0'.repeat(63)}`, 'sha256 digest is 64'],
    ['sha256', 'not algorithm:hex'],
  ])('%s', (digest, problem) => {
    const found = digestProblem(digest);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});

describe('dnsLabel', () => {
  test.each([
    ['nginx', 'nginx'],
    ['localhost:5000/team-a/web:1', 'web'],
    ['ghcr.io/org/my_app.server', 'my-app-server'],
    ['a__b', 'a-b'],
  ])('%s → %s', (input, label) => {
    expect(dnsLabel(parseReference(input))).toBe(label);
  });

  test('long names: 63 characters, distinct, deterministic', () => {
    const a = dnsLabel(parseReference(`r.io/${'x'.repeat(80)}a`));
    const b = dnsLabel(parseReference(`r.io/${'x'.repeat(80)}b`));
    expect(a).toHaveLength(63);
    expect(a).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(a).not.toBe(b);
    expect(dnsLabel(parseReference(`r.io/${'x'.repeat(80)}a`))).toBe(a);
  });
});

test.each([
  ['web', false],
  ['team/web', false],
  ['localhost/web', true],
  ['localhost:5000/web', true],
  ['ghcr.io/o/web', true],
])('namesRegistry(%s) = %s', (text, expected) => {
  expect(namesRegistry(text)).toBe(expected);
});

describe('splitReference: the parts as written, unchecked', () => {
  test.each([
    // input, domain, path, tag, digest
    ['nginx', undefined, 'nginx', undefined, undefined],
    ['nginx:1.27', undefined, 'nginx', '1.27', undefined],
    ['localhost:5000/web:dev', 'localhost:5000', 'web', 'dev', undefined],
    ['localhost:5000/web', 'localhost:5000', 'web', undefined, undefined],
    ['ghcr.io/org/app@sha256:abc', 'ghcr.io', 'org/app', undefined, 'sha256:abc'],
    ['web:v1@sha256:abc', undefined, 'web', 'v1', 'sha256:abc'],
    ['Org/app', 'Org', 'app', undefined, undefined],
    ['web:', undefined, 'web', '', undefined],
  ])('%s', (text, domain, path, tag, digest) => {
    expect(splitReference(text)).toEqual({ domain, path, tag, digest });
  });
});
