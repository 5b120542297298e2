// kubeconfig users with an `exec` credential plugin, compared point by point with client-go's exec
// authenticator (plugin/pkg/client/auth/exec/exec.go) and clientcmd's loading rules. Each test writes
// a plugin script that logs every call (time, args, KUBERNETES_EXEC_INFO, one env value) to a file and
// prints an ExecCredential, and a local HTTP server stands in for an API server that takes bearer tokens.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { type KubeApiError, KubeClient, UnauthorizedError } from '../../../src/cluster/client.js';
import { ExecAuthenticator, type ExecConfig } from '../../../src/cluster/exec-credential.js';
import { loadKubeconfig } from '../../../src/cluster/kubeconfig.js';
import { explainApiError } from '../../../src/engine/apply/errors.js';
import { acquireLock } from '../../../src/engine/inventory/lock.js';
import { execPlugin } from '../../support/exec-plugin.js';

// --- a stand-in API server: accepts the bearer tokens in `valid`, answers 401 otherwise -----------------

let server: http.Server;
let base: string;
const valid = new Set<string>();
/** The token of every request, in order, with its method and path. */
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    seen.push(`${req.method} ${req.url?.split('?')[0]} ${token}`);
    if (!valid.has(token)) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      return void res.end(
        '{"kind":"Status","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}',
      );
    }
    if (req.url?.includes('watch=1')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end('{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}\n');
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // A POST or PUT answers its body with a resourceVersion (enough for the Lease of the lock).
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : { kind: 'Thing' };
      body.metadata = { ...body.metadata, resourceVersion: String(seen.length), uid: 'u1' };
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** A kubeconfig file in `dir` whose user `deployer` (context `prod`) runs `exec`. */
function kubeconfigFile(
  dir: string,
  exec: Partial<ExecConfig>,
  cluster: Record<string, unknown> = {},
  user: Record<string, unknown> = {},
): string {
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'prod',
      clusters: [{ name: 'c', cluster: { server: base, 'insecure-skip-tls-verify': true, ...cluster } }],
      users: [
        {
          name: 'deployer',
          user: {
            ...user,
            exec: { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never', ...exec },
          },
        },
      ],
      contexts: [{ name: 'prod', context: { cluster: 'c', user: 'deployer' } }],
    }),
  );
  return file;
}

function clientOf(file: string): KubeClient {
  return new KubeClient(loadKubeconfig({ paths: [file] }).kubeConfig, { retries: 0 });
}

const get = (c: KubeClient, name = 'x') =>
  c.request({ method: 'GET', path: `/api/v1/namespaces/a/configmaps/${name}` });

describe('exec credential plugins, as client-go runs them', () => {
  test('requests, a watch and a second client of one run start the plugin once', async () => {
    const p = execPlugin({ delayMs: 300 });
    valid.add('valid-1');
    const file = kubeconfigFile(p.dir, { command: p.file });
    const c = clientOf(file);
    await Promise.all([
      get(c, 'a'),
      get(c, 'b'),
      get(c, 'c'),
      c.watch('/api/v1/namespaces/a/configmaps', {}, () => {}),
    ]);
    // The same kubeconfig loaded again in the same run (a deploy, then its status): same plugin.
    await get(clientOf(file), 'd');
    expect(p.calls()).toHaveLength(1);
  });

  test('KUBERNETES_EXEC_INFO: the ExecCredential of the apiVersion, interactive false, no cluster unless asked', async () => {
    const p = execPlugin();
    valid.add('valid-1');
    await get(clientOf(kubeconfigFile(p.dir, { command: p.file })));
    expect(p.calls()[0]!.info).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  test('provideClusterInfo: the cluster in KUBERNETES_EXEC_INFO, with its exec extension as config', async () => {
    const p = execPlugin({ apiVersion: 'client.authentication.k8s.io/v1beta1' });
    valid.add('valid-1');
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString(
      'base64',
    );
    const file = kubeconfigFile(
      p.dir,
      { command: p.file, apiVersion: 'client.authentication.k8s.io/v1beta1', provideClusterInfo: true },
      {
        'certificate-authority-data': ca,
        'tls-server-name': 'api.example',
        extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'spread-test' } }],
      },
    );
    await get(clientOf(file));
    expect(p.calls()[0]!.info).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: base,
          'tls-server-name': 'api.example',
          'insecure-skip-tls-verify': true,
          'certificate-authority-data': ca,
          config: { audience: 'spread-test' },
        },
      },
    });
  });

  test('args in order and env on top of the environment', async () => {
    const p = execPlugin();
    valid.add('valid-1');
    const exec = {
      command: p.file,
      args: ['token', '--cluster-name', 'prod'],
      env: [{ name: 'PLUGIN_REGION', value: 'eu-west-1' }],
    };
    await get(clientOf(kubeconfigFile(p.dir, exec)));
    expect(p.calls()[0]).toMatchObject({ args: ['token', '--cluster-name', 'prod'], env: 'eu-west-1' });
  });

  test('a relative command is found beside the kubeconfig file, not in the working directory', async () => {
    const p = execPlugin();
    valid.add('valid-1');
    mkdirSync(path.join(p.dir, 'bin'));
    writeFileSync(path.join(p.dir, 'bin', 'plugin'), readFileSync(p.file));
    chmodSync(path.join(p.dir, 'bin', 'plugin'), 0o755);
    expect(process.cwd()).not.toBe(p.dir);
    await get(clientOf(kubeconfigFile(p.dir, { command: './bin/plugin' })));
    expect(p.calls()).toHaveLength(1);
  });

  test('a missing command: client-go words, then the installHint', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-exec-'));
    const hint = 'aws-iam-authenticator is needed: brew install aws-iam-authenticator';
    const c = clientOf(kubeconfigFile(dir, { command: 'spread-no-such-login-plugin', installHint: hint }));
    const error = await get(c).catch((e: Error) => e);
    expect((error as Error).message).toContain('executable spread-no-such-login-plugin not found');
    expect((error as Error).message).toContain('user "deployer" of context "prod"');
    expect((error as Error).message).toContain(hint);
  });

  test('interactiveMode: Always without a terminal fails before running; v1 needs one; apiVersion is checked', async () => {
    const p = execPlugin();
    const always = await get(
      clientOf(kubeconfigFile(p.dir, { command: p.file, interactiveMode: 'Always' })),
    ).catch((e: Error) => e);
    expect((always as Error).message).toMatch(/standard input is not a terminal/);
    expect(p.calls()).toHaveLength(0);
    expect(() => clientOf(kubeconfigFile(p.dir, { command: p.file, interactiveMode: '' }))).toThrow(
      /interactiveMode must be specified/,
    );
    expect(() =>
      clientOf(
        kubeconfigFile(p.dir, { command: p.file, apiVersion: 'client.authentication.k8s.io/v1alpha1' }),
      ),
    ).toThrow(/invalid apiVersion "client.authentication.k8s.io\/v1alpha1"/);
  });

  test('an ExecCredential of another apiVersion than configured is refused', async () => {
    const p = execPlugin({ apiVersion: 'client.authentication.k8s.io/v1beta1' });
    const error = await get(clientOf(kubeconfigFile(p.dir, { command: p.file }))).catch((e: Error) => e);
    expect((error as Error).message).toContain(
      'exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1',
    );
  });

  test('a user with a token as well: the token is sent, the plugin never runs (client-go)', async () => {
    const p = execPlugin();
    valid.add('static-token');
    const file = kubeconfigFile(p.dir, { command: p.file }, {}, { token: 'static-token' });
    await get(clientOf(file), 'precedence');
    expect(p.calls()).toHaveLength(0);
    expect(seen.at(-1)).toBe('GET /api/v1/namespaces/a/configmaps/precedence static-token');
  });

  test('the credential is kept until its expirationTimestamp, then the plugin runs again', async () => {
    const p = execPlugin({ expires: '2030-01-01T00:00:00Z' });
    let now = Date.parse('2029-12-31T23:59:00Z');
    const io = {
      isTerminal: () => false,
      environ: () => process.env,
      stderr: new Writable({ write: (_c, _e, cb) => cb() }),
      now: () => now,
    };
    const config = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: p.file,
      interactiveMode: 'Never',
    };
    const auth = new ExecAuthenticator(config, { server: base }, 'user "u" of context "c"', io);
    const first = await auth.credential();
    expect(await auth.credential()).toBe(first);
    expect(p.calls()).toHaveLength(1);
    now = Date.parse('2030-01-01T00:00:01Z');
    await auth.credential();
    expect(p.calls()).toHaveLength(2);
  });
});

describe('a 401 runs the plugin again and retries once', () => {
  test('a refused credential: the plugin runs again, the request is retried with the new one', async () => {
    const p = execPlugin();
    p.tokens('revoked-1', 'valid-2');
    valid.add('valid-2');
    const c = clientOf(kubeconfigFile(p.dir, { command: p.file }));
    await expect(get(c)).resolves.toMatchObject({ status: 200 });
    await get(c);
    expect(p.calls()).toHaveLength(2);
    expect(seen.filter((s) => /revoked-1|valid-2/.test(s)).map((s) => s.split(' ')[2])).toEqual([
      'revoked-1',
      'valid-2',
      'valid-2',
    ]);
  });

  test('a watch refused: the plugin runs again and the watch is opened again', async () => {
    const p = execPlugin();
    p.tokens('revoked-2', 'valid-3');
    valid.add('valid-3');
    const c = clientOf(kubeconfigFile(p.dir, { command: p.file }));
    const events: string[] = [];
    await c.watch('/api/v1/namespaces/a/configmaps', {}, (e) => events.push(e.type));
    expect(events).toEqual(['ADDED']);
    expect(p.calls()).toHaveLength(2);
  });

  test('the Lease renewer: a credential revoked mid-deploy is refreshed, the renewal goes through', async () => {
    const p = execPlugin();
    p.tokens('valid-4', 'valid-5');
    valid.add('valid-4');
    valid.add('valid-5');
    const c = clientOf(kubeconfigFile(p.dir, { command: p.file }));
    const lock = await acquireLock(c, 'web', 'a', { renewIntervalMs: 100 });
    valid.delete('valid-4'); // revoked while the deploy runs
    await new Promise((r) => setTimeout(r, 450));
    await lock.release();
    const puts = seen.filter((s) => s.startsWith('PUT /apis/coordination.k8s.io/v1/namespaces/a/leases/'));
    expect(puts.some((s) => s.endsWith(' valid-5'))).toBe(true);
    expect(seen.some((s) => s.startsWith('DELETE ') && s.endsWith(' valid-5'))).toBe(true);
  });

  test('refused again after the refresh: the error names the user and context and what to do, never the token', async () => {
    const p = execPlugin();
    p.tokens('revoked-3', 'revoked-4');
    const c = clientOf(kubeconfigFile(p.dir, { command: p.file }));
    const error = await get(c).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as KubeApiError).code).toBe(401);
    const text = explainApiError(error);
    expect(text).toContain('user "deployer" of context "prod"');
    expect(text).toContain('exec plugin token-plugin.mjs');
    expect(text).toMatch(/Log in again/);
    expect(text).not.toMatch(/revoked-/);
    expect(p.calls()).toHaveLength(2);
  });

  test('a token of the file refused: no retry, the error says to get a new token', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-token-'));
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'ci',
        clusters: [{ name: 'c', cluster: { server: base, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'robot', user: { token: 'expired-static-token' } }],
        contexts: [{ name: 'ci', context: { cluster: 'c', user: 'robot' } }],
      }),
    );
    const before = seen.length;
    const error = await get(clientOf(file)).catch((e: unknown) => e);
    expect(seen.length - before).toBe(1);
    const text = explainApiError(error);
    expect(text).toContain('the token of user "robot" of context "ci"');
    expect(text).toContain('Get a new token and update the kubeconfig');
    expect(text).not.toContain('expired-static-token');
  });
});

describe('a client certificate from the plugin', () => {
  // openssl makes a CA, the server's certificate and two client certificates (CN alice-1, alice-2).
  const pki = mkdtempSync(path.join(tmpdir(), 'spread-exec-pki-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki, stdio: 'pipe' });
  const issue = (name: string, cn: string, ext?: string) => {
    ssl(
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-subj',
      `/CN=${cn}`,
      '-out',
      `${name}.csr`,
    );
    if (ext) writeFileSync(path.join(pki, `${name}.ext`), ext);
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      `${name}.crt`,
      ...(ext ? ['-extfile', `${name}.ext`] : []),
    );
  };
  const read = (file: string) => readFileSync(path.join(pki, file), 'utf8');
  let tlsServer: https.Server;
  let tlsBase: string;

  beforeAll(async () => {
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-subj',
      '/CN=test-ca',
      '-days',
      '1',
      '-out',
      'ca.crt',
    );
    issue('server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1');
    issue('alice-1', 'alice-1');
    issue('alice-2', 'alice-2');
    tlsServer = https.createServer(
      {
        key: read('server.key'),
        cert: read('server.crt'),
        ca: read('ca.crt'),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const cn = (req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ cn }));
      },
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    tlsBase = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(() => {
    tlsServer?.closeAllConnections();
    tlsServer?.close();
  });

  test('a rotated certificate gets new connections (client-go closes every connection)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'spread-exec-cert-'));
    const log = path.join(dir, 'calls.log');
    writeFileSync(log, '');
    const plugin = path.join(dir, 'cert-plugin.mjs');
    const creds = [1, 2].map((n) => ({
      clientCertificateData: read(`alice-${n}.crt`),
      clientKeyData: read(`alice-${n}.key`),
    }));
    writeFileSync(
      plugin,
      `#!${process.execPath}
import { appendFileSync, readFileSync } from 'node:fs';
const n = readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter(Boolean).length;
appendFileSync(${JSON.stringify(log)}, 'call\\n');
const creds = ${JSON.stringify(creds)};
const status = { ...creds[Math.min(n, 1)], ...(n === 0 ? { expirationTimestamp: new Date(Date.now() + 1500).toISOString() } : {}) };
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }));
`,
    );
    chmodSync(plugin, 0o755);
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(
      file,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'tls',
        clusters: [
          {
            name: 'c',
            cluster: {
              server: tlsBase,
              'certificate-authority-data': Buffer.from(read('ca.crt')).toString('base64'),
            },
          },
        ],
        users: [
          {
            name: 'alice',
            user: {
              exec: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: plugin,
                interactiveMode: 'Never',
              },
            },
          },
        ],
        contexts: [{ name: 'tls', context: { cluster: 'c', user: 'alice' } }],
      }),
    );
    const c = new KubeClient(loadKubeconfig({ paths: [file] }).kubeConfig, { retries: 0 });
    const cn = async () => (await c.request<{ cn: string }>({ method: 'GET', path: '/api' })).body.cn;
    expect(await cn()).toBe('alice-1');
    expect(await cn()).toBe('alice-1');
    await new Promise((r) => setTimeout(r, 1700));
    // The kept-alive connection was made with alice-1's certificate: a new one carries alice-2's.
    expect(await cn()).toBe('alice-2');
    c.close();
  });
});
