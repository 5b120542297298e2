import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { decodeKubeconfigContent, KubeconfigError, loadKubeconfig } from '../../../src/cluster/kubeconfig.js';

const kubeconfig = (current: string, token = 'sekret-token-value') => `apiVersion: v1
kind: Config
current-context: ${current}
clusters:
- name: c1
  cluster: {server: https://127.0.0.1:6443}
users:
- name: u1
  user: {token: ${token}}
contexts:
- name: one
  context: {cluster: c1, user: u1, namespace: team-a}
- name: two
  context: {cluster: c1, user: u1}
`;

describe('loadKubeconfig', () => {
  test('uses the current context and its namespace', () => {
    const r = loadKubeconfig({ content: kubeconfig('one') });
    expect(r.context).toBe('one');
    expect(r.namespace).toBe('team-a');
  });

  test("a context without a namespace means 'default'", () => {
    expect(loadKubeconfig({ content: kubeconfig('one') }, 'two').namespace).toBe('default');
  });

  test('a missing context is an error naming the contexts that exist', () => {
    expect(() => loadKubeconfig({ content: kubeconfig('one') }, 'no-such-context')).toThrow(
      /context "no-such-context" does not exist .*available contexts: one, two/,
    );
  });

  test('base64 content is decoded', () => {
    const b64 = Buffer.from(kubeconfig('two')).toString('base64');
    expect(loadKubeconfig({ content: b64 }).context).toBe('two');
  });

  test('secrets lists the token for masking', () => {
    expect(loadKubeconfig({ content: kubeconfig('one', 'tok-123456') }).secrets).toContain('tok-123456');
  });

  test('KUBECONFIG lists merge with the first file winning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-kc-'));
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    writeFileSync(a, kubeconfig('one'));
    writeFileSync(
      b,
      kubeconfig('two')
        .replace(/name: one/g, 'name: three')
        .replace(/- name: two/, '- name: four'),
    );
    const r = loadKubeconfig({ paths: [a, b] });
    expect(r.context).toBe('one');
    expect(r.kubeConfig.getContexts().map((c) => c.name)).toEqual(['one', 'two', 'three', 'four']);
  });

  test('no source at all is a KubeconfigError', () => {
    expect(() => loadKubeconfig({})).toThrow(KubeconfigError);
  });

  test('an unreadable file is a KubeconfigError', () => {
    expect(() => loadKubeconfig({ paths: [mkdtempSync(path.join(tmpdir(), 'spread-kc-'))] })).toThrow(
      /cannot read the kubeconfig: .*EISDIR/,
    );
  });
});

describe('decodeKubeconfigContent', () => {
  test('leaves plain YAML alone', () => {
    expect(decodeKubeconfigContent('apiVersion: v1\n')).toBe('apiVersion: v1\n');
  });
  test('leaves base64 that is not a kubeconfig alone', () => {
    const b64 = Buffer.from('hello world').toString('base64');
    expect(decodeKubeconfigContent(b64)).toBe(b64);
  });
});

describe('kubeconfig errors never quote the file', () => {
  test('a YAML error names the position, not the lines around it', () => {
    const broken = kubeconfig('one', 'Zq9XvT3kLpW8mN2bR7cY4dF6hJ1sA5eU0oI').replace(
      'users:',
      'bogus: [\nusers:',
    );
    const error = (() => {
      try {
        loadKubeconfig({ content: broken });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(KubeconfigError);
    expect(error!.message).toMatch(/cannot read the kubeconfig: .*line \d+/);
    expect(error!.message).not.toMatch(/Zq9XvT3k/);
  });

  test('content that is no kubeconfig says so', () => {
    expect(() => loadKubeconfig({ content: 'YXBpVmVyc2lvbjogdjEK' })).toThrow(
      /holds no clusters and no contexts/,
    );
  });
});

describe('loadKubeconfig: files', () => {
  test('when no file exists, the error names every one (not the first ENOENT)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-kc-'));
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')];
    expect(() => loadKubeconfig({ paths: [a, b] })).toThrow(
      new KubeconfigError(`no kubeconfig: none of these files exists: ${a}, ${b}`),
    );
    expect(() => loadKubeconfig({ paths: [a] })).toThrow(
      new KubeconfigError(`no kubeconfig: ${a} does not exist`),
    );
  });
});
