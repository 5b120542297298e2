// The local test environment itself (scripts/cluster/up.sh): the Kubernetes cluster with its kwok
// Nodes, the team-a tenant's RBAC, the Docker engine and the authenticated registry.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ClusterEnv, clusterEnvFile, parseClusterEnv, readClusterEnv } from './env.js';
import { needs } from './harness.js';

const exec = promisify(execFile);

let env: ClusterEnv;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; a non-zero exit is returned, not thrown. */
async function run(cmd: string, args: string[], input?: string): Promise<Run> {
  const p = exec(cmd, args, { env: process.env, maxBuffer: 64 << 20 });
  if (input !== undefined) {
    p.child.stdin?.end(input);
  }
  try {
    const { stdout, stderr } = await p;
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof err.code === 'number' ? err.code : -1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    };
  }
}

/** kubectl of the harness against the local cluster, as admin or as the team-a user. */
function kubectl(args: string[], opts: { context?: string; input?: string } = {}): Promise<Run> {
  const base = ['--kubeconfig', env.KUBECONFIG, '--context', opts.context ?? 'spread-local'];
  return run(env.SPREAD_KUBECTL, [...base, ...args], opts.input);
}

async function kubectlOk(args: string[], opts: { context?: string; input?: string } = {}): Promise<string> {
  const r = await kubectl(args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

function dockerApi(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socketPath = env.DOCKER_HOST.replace(/^unix:\/\//, '');
    const req = request({ socketPath, path, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

function suffix(): string {
  return randomBytes(4).toString('hex');
}

beforeAll(() => {
  env = readClusterEnv();
});

describe('environment', needs('harnessFiles'), () => {
  it('globalSetup loaded .cluster/env into process.env and provided it', () => {
    expect(process.env.KUBECONFIG).toBe(env.KUBECONFIG);
    expect(process.env.DOCKER_HOST).toBe(env.DOCKER_HOST);
    expect(process.env.DOCKER_CONFIG).toBe(env.DOCKER_CONFIG);
    expect(process.env.SPREAD_REGISTRY).toBe(env.SPREAD_REGISTRY);
    expect(process.env.PATH?.split(':')[0]).toBe(env.SPREAD_BIN_DIR);
    expect(existsSync(join(env.SPREAD_BIN_DIR!, 'kubectl'))).toBe(true);
    expect(inject('clusterEnv').KUBECONFIG).toBe(env.KUBECONFIG);
    expect(env.DOCKER_HOST).toMatch(/^unix:\/\//);
    expect(env.SPREAD_REGISTRY).toMatch(/^localhost:\d+$/);
  });

  it('.cluster/env reads the same in bash (source) and in env.ts', async () => {
    const keys = Object.keys(env);
    const script = `set -e; source "$1"; shift; for k in "$@"; do printf '%s=%s\\0' "$k" "\${!k}"; done`;
    const r = await run('bash', ['-c', script, 'bash', clusterEnvFile(), ...keys]);
    expect(r.code, r.stderr).toBe(0);
    const sourced = Object.fromEntries(
      r.stdout
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    expect(sourced).toEqual(readClusterEnv(clusterEnvFile(), process.env));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax that env.ts expands
    const sample = ["export A='x y'", 'export B="$A:${A}"', 'export C=${SPREAD_ITG_UNSET}z', '# comment', ''];
    expect(parseClusterEnv(sample.join('\n'), {})).toEqual({
      A: 'x y',
      B: 'x y:x y',
      C: 'z',
    });
  });

  it('kubeconfig has the admin and the team-a contexts', async () => {
    const contexts = JSON.parse(await kubectlOk(['config', 'view', '-o', 'json'])) as {
      'current-context': string;
      contexts: { name: string; context: { namespace?: string; user: string } }[];
    };
    expect(contexts['current-context']).toBe('spread-local');
    const byName = Object.fromEntries(contexts.contexts.map((c) => [c.name, c.context]));
    expect(byName['spread-local']?.namespace).toBe('default');
    expect(byName['spread-team-a']?.namespace).toBe('team-a');
  });
});

describe('kubernetes', needs('harnessFiles', 'teamA'), () => {
  it('the API server is ready and runs the configured version', async () => {
    expect(await kubectlOk(['get', '--raw', '/readyz'])).toBe('ok');
    const version = JSON.parse(await kubectlOk(['get', '--raw', '/version'])) as { gitVersion: string };
    expect(version.gitVersion).toBe(env.SPREAD_KUBE_VERSION);
  });

  it('has three kwok Nodes, all Ready and untainted', async () => {
    const nodes = JSON.parse(await kubectlOk(['get', 'nodes', '-o', 'json'])) as {
      items: {
        metadata: { name: string; annotations?: Record<string, string> };
        spec: { taints?: unknown[] };
        status: { conditions?: { type: string; status: string }[] };
      }[];
    };
    const kwok = nodes.items.filter((n) => n.metadata.annotations?.['kwok.x-k8s.io/node'] === 'fake');
    expect(kwok.map((n) => n.metadata.name).sort()).toEqual([
      'spread-worker-1',
      'spread-worker-2',
      'spread-worker-3',
    ]);
    for (const n of nodes.items) {
      expect(n.status.conditions?.find((c) => c.type === 'Ready')?.status, n.metadata.name).toBe('True');
      expect(n.spec.taints ?? [], n.metadata.name).toEqual([]);
    }
  });

  it('the default ServiceAccount exists in default and team-a', async () => {
    for (const ns of ['default', 'team-a']) {
      expect(await kubectlOk(['get', 'serviceaccount', 'default', '-n', ns, '-o', 'name'])).toBe(
        'serviceaccount/default\n',
      );
    }
  });

  it('a Pod is scheduled and becomes Ready', async () => {
    const name = `itg-pod-${suffix()}`;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    };
    await kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(pod) });
    try {
      await kubectlOk(['wait', '--for=condition=Ready', `pod/${name}`, '-n', 'default', '--timeout=60s']);
      const got = JSON.parse(await kubectlOk(['get', 'pod', name, '-n', 'default', '-o', 'json'])) as {
        spec: { nodeName?: string };
        status: { phase: string };
      };
      expect(got.status.phase).toBe('Running');
      expect(got.spec.nodeName).toMatch(/^spread-worker-[123]$/);
    } finally {
      await kubectl(['delete', 'pod', name, '-n', 'default', '--wait=false']);
    }
  });

  it('team-a can run a ReplicationController in team-a and its pods become Ready', async () => {
    const name = `itg-rc-${suffix()}`;
    const rc = {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name },
      spec: {
        replicas: 2,
        selector: { app: name },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    };
    const asTeam = { context: 'spread-team-a' };
    await kubectlOk(['apply', '-f', '-'], { ...asTeam, input: JSON.stringify(rc) });
    try {
      await kubectlOk(
        ['wait', '--for=jsonpath={.status.readyReplicas}=2', `rc/${name}`, '--timeout=60s'],
        asTeam,
      );
      const pods = JSON.parse(
        await kubectlOk(['get', 'pods', '-l', `app=${name}`, '-o', 'json'], asTeam),
      ) as {
        items: {
          metadata: { namespace: string };
          status: { conditions?: { type: string; status: string }[] };
        }[];
      };
      expect(pods.items).toHaveLength(2);
      for (const p of pods.items) {
        expect(p.metadata.namespace).toBe('team-a');
        expect(p.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      }
    } finally {
      await kubectl(['delete', 'rc', name, '--wait=false'], asTeam);
    }
  });

  it('team-a is confined to its namespace by RBAC', async () => {
    const can = (...args: string[]) => kubectl(['auth', 'can-i', ...args], { context: 'spread-team-a' });
    const inTeam = await can('create', 'services', '-n', 'team-a');
    expect([inTeam.code, inTeam.stdout.trim()]).toEqual([0, 'yes']);
    const inDefault = await can('create', 'services', '-n', 'default');
    expect(inDefault.stdout.trim()).toBe('no');
    expect(inDefault.code).not.toBe(0);
    expect((await can('list', 'nodes')).stdout.trim()).toBe('no');
    expect((await can('create', 'namespaces')).stdout.trim()).toBe('no');

    const denied = await kubectl(['create', 'configmap', `itg-${suffix()}`, '-n', 'default'], {
      context: 'spread-team-a',
    });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/forbidden/i);
  });
});

describe('docker engine and registry', needs('docker', 'registry'), () => {
  function registryAuth(): string {
    const config = JSON.parse(readFileSync(join(env.DOCKER_CONFIG, 'config.json'), 'utf8')) as {
      auths: Record<string, { auth: string }>;
    };
    const auth = config.auths[env.SPREAD_REGISTRY]?.auth;
    if (!auth) throw new Error(`no credentials for ${env.SPREAD_REGISTRY} in the Docker config`);
    return auth;
  }

  it('the Docker daemon answers on DOCKER_HOST', async () => {
    const ping = await dockerApi('/_ping');
    expect([ping.status, ping.body]).toEqual([200, 'OK']);
    const info = JSON.parse((await dockerApi('/info')).body) as { Driver: string };
    expect(info.Driver).toBe('vfs');
  });

  it('the registry rejects anonymous and wrong credentials and accepts the configured ones', async () => {
    const url = `http://${env.SPREAD_REGISTRY}/v2/`;
    const anonymous = await fetch(url);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);

    const user = Buffer.from(registryAuth(), 'base64').toString().split(':')[0]!;
    const wrong = await fetch(url, {
      headers: { authorization: `Basic ${Buffer.from(`${user}:wrong`).toString('base64')}` },
    });
    expect(wrong.status).toBe(401);

    const ok = await fetch(url, { headers: { authorization: `Basic ${registryAuth()}` } });
    expect(ok.status).toBe(200);
    const password = readFileSync(env.SPREAD_REGISTRY_PASSWORD_FILE!, 'utf8').trim();
    expect(registryAuth()).toBe(Buffer.from(`${user}:${password}`).toString('base64'));
  });

  const dockerCli = ['/usr/bin/docker', '/usr/local/bin/docker'].find((p) => existsSync(p));
  it.skipIf(!dockerCli || !existsSync('/bin/busybox'))(
    'the docker CLI builds FROM scratch and pushes with the config; a wrong password is refused',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'spread-itg-'));
      const tag = `${env.SPREAD_REGISTRY}/itg-smoke:${suffix()}`;
      try {
        writeFileSync(join(dir, 'busybox'), readFileSync('/bin/busybox'), { mode: 0o755 });
        writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\nCOPY busybox /bin/busybox\n');
        const build = await run(dockerCli!, ['build', '-q', '-t', tag, dir]);
        expect(build.code, build.stderr).toBe(0);
        const push = await run(dockerCli!, ['--config', env.DOCKER_CONFIG, 'push', tag]);
        expect(push.code, push.stderr).toBe(0);
        expect(push.stdout).toMatch(/digest: sha256:[0-9a-f]{64}/);

        const bad = join(dir, 'bad-config');
        const user = Buffer.from(registryAuth(), 'base64').toString().split(':')[0]!;
        const badAuth = Buffer.from(`${user}:not-the-password`).toString('base64');
        mkdirSync(bad);
        writeFileSync(
          join(bad, 'config.json'),
          JSON.stringify({ auths: { [env.SPREAD_REGISTRY]: { auth: badAuth } } }),
        );
        const denied = await run(dockerCli!, ['--config', bad, 'push', tag]);
        expect(denied.code).not.toBe(0);
        expect(denied.stdout + denied.stderr).toMatch(/unauthorized|authentication required/i);
      } finally {
        await run(dockerCli!, ['rmi', tag]);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
