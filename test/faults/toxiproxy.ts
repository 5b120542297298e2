// Toxiproxy (built by scripts/cluster/build-binaries.sh) on loopback, in front of the API server and
// the registry of the cluster the tests run on. Its API listens on 127.0.0.1:18474 by default
// (SPREAD_TOXIPROXY_PORT; the proxies take the next two ports), away from the benchmark's 8474.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import toxiproxyClient from 'toxiproxy-node-client';
import { sleep } from '../../src/base/poll.js';

const { Toxiproxy } = toxiproxyClient;
type ToxiproxyApi = InstanceType<typeof Toxiproxy>;
type Proxy = Awaited<ReturnType<ToxiproxyApi['get']>>;

/** The toxics the fault classes use, with Toxiproxy's attribute names (see its README). */
export type ToxicSpec =
  | { type: 'reset_peer'; attributes: { timeout: number } }
  | { type: 'timeout'; attributes: { timeout: number } }
  | { type: 'latency'; attributes: { latency: number; jitter: number } }
  | { type: 'slicer'; attributes: { average_size: number; size_variation: number; delay: number } }
  | { type: 'bandwidth'; attributes: { rate: number } };

/** A running toxiproxy-server and its two proxies. */
export interface Toxi {
  /** `127.0.0.1:PORT` of the proxy in front of the API server. */
  readonly api: string;
  /** `127.0.0.1:PORT` of the proxy in front of the registry. */
  readonly registry: string;
  /** The seed Toxiproxy draws toxicity with (printed in a failing run's schedule). */
  readonly seed: number;
  /** Adds a toxic to a proxy, on the downstream (server → client) stream. */
  add(proxy: 'api' | 'registry', name: string, spec: ToxicSpec, toxicity: number): Promise<void>;
  /** Removes a toxic; no error when it is gone. */
  remove(proxy: 'api' | 'registry', name: string): Promise<void>;
  /** Removes every toxic of both proxies. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** The toxiproxy-server binary of SPREAD_TOXIPROXY_VERSION in the build cache. */
export function toxiproxyBinary(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.SPREAD_CACHE || path.join(env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'spread');
  return path.join(cache, 'bin', `toxiproxy-${env.SPREAD_TOXIPROXY_VERSION || 'v2.5.0'}`, 'toxiproxy-server');
}

async function until<T>(what: string, attempt: () => Promise<T>, tries = 100): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      return await attempt();
    } catch (error) {
      last = error;
      await sleep(100);
    }
  }
  throw new Error(`${what}: ${(last as Error)?.message ?? last}`);
}

/**
 * The first of three free loopback ports from `start` on (the API and the two proxies), in steps of
 * three: a toxiproxy-server of another test run on the machine would otherwise answer in ours' place.
 * @throws Error when ten tries find none.
 */
async function freePorts(start: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let port = start; port < start + 30; port += 3) {
    if ((await free(port)) && (await free(port + 1)) && (await free(port + 2))) return port;
  }
  throw new Error(`no three free ports from ${start} to ${start + 29} for toxiproxy (SPREAD_TOXIPROXY_PORT)`);
}

/**
 * Starts toxiproxy-server on 127.0.0.1 with proxies to `apiUpstream` and `registryUpstream`
 * (`host:port`).
 * @throws Error when the binary is missing (run scripts/cluster/build-binaries.sh) or does not start.
 */
export async function startToxiproxy(
  apiUpstream: string,
  registryUpstream: string,
  seed: number,
  port = Number(process.env.SPREAD_TOXIPROXY_PORT || 18474),
): Promise<Toxi> {
  const bin = toxiproxyBinary();
  if (!existsSync(bin)) throw new Error(`${bin} is missing: scripts/cluster/build-binaries.sh builds it`);
  port = await freePorts(port);
  const child: ChildProcess = spawn(
    bin,
    ['-host', '127.0.0.1', '-port', String(port), '-seed', String(seed)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  child.stderr?.on('data', (d) => {
    log = (log + d).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const api = new Toxiproxy(`http://127.0.0.1:${port}`);
  try {
    await until('toxiproxy-server did not start', () => api.getVersion());
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${log}`);
  }
  const listen = { api: `127.0.0.1:${port + 1}`, registry: `127.0.0.1:${port + 2}` };
  const proxies: Record<'api' | 'registry', Proxy> = {
    api: await api.createProxy({ name: 'kube-apiserver', listen: listen.api, upstream: apiUpstream }),
    registry: await api.createProxy({
      name: 'registry',
      listen: listen.registry,
      upstream: registryUpstream,
    }),
  };
  return {
    ...listen,
    seed,
    async add(proxy, name, spec, toxicity) {
      await proxies[proxy].addToxic({ name, stream: 'downstream', toxicity, ...spec } as never);
    },
    async remove(proxy, name) {
      try {
        const toxic = await proxies[proxy].getToxic(name);
        await toxic.remove();
      } catch {
        // already removed
      }
    },
    async reset() {
      await api.reset();
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
