// The deploy benchmark's latency proxy (bench/bench.mjs --rtt): Toxiproxy on loopback between every
// client and the API server. TCP is passed through, so TLS ends at the API server (its certificate
// names 127.0.0.1, which the proxy's address is too); a latency toxic on each direction makes the
// round trip what was asked. Toxiproxy is built by scripts/cluster/build-binaries.sh into
// $SPREAD_CACHE/bin/toxiproxy-<version>/ (SPREAD_CACHE as scripts/cluster/versions.sh sets it).
import { spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Toxiproxy } from 'toxiproxy-node-client';
import { parse as parseYaml, stringify } from 'yaml';

/** The Toxiproxy version scripts/cluster/versions.sh pins (SPREAD_TOXIPROXY_VERSION overrides it). */
export const TOXIPROXY_VERSION = process.env.SPREAD_TOXIPROXY_VERSION ?? 'v2.5.0';
/** The name of the one proxy (Toxiproxy's proxy name) in front of the API server. */
export const PROXY_NAME = 'kube-apiserver';

/**
 * Round trips from a `--rtt` value: comma-separated whole milliseconds, e.g. `0,10,30` → [0, 10, 30].
 * @throws Error naming the first value that is not a whole number of milliseconds ≥ 0.
 */
export function parseRtts(text) {
  const values = String(text)
    .split(',')
    .map((s) => s.trim());
  const bad = values.find((s) => !/^\d+$/.test(s));
  if (bad !== undefined)
    throw new Error(`--rtt ${text}: "${bad}" is not a round trip in whole milliseconds (e.g. --rtt 0,10,30)`);
  return values.map(Number);
}

/**
 * The toxics that give a round trip of `rttMs` milliseconds: Toxiproxy's latency toxic delays the data
 * of one direction (`upstream`: client → server, `downstream`: server → client) by `latency` ms, so
 * half goes on each (an odd millisecond on the downstream side), with no jitter, on every connection
 * (toxicity 1). None for 0. Shape: Toxiproxy's toxic JSON (POST /proxies/{proxy}/toxics).
 * @throws Error when `rttMs` is not a whole number ≥ 0.
 */
export function latencyToxics(rttMs) {
  if (!Number.isInteger(rttMs) || rttMs < 0)
    throw new Error(`a round trip must be a whole number of milliseconds ≥ 0, not ${rttMs}`);
  if (rttMs === 0) return [];
  const up = Math.floor(rttMs / 2);
  return [
    {
      name: 'latency_upstream',
      type: 'latency',
      stream: 'upstream',
      toxicity: 1,
      attributes: { latency: up, jitter: 0 },
    },
    {
      name: 'latency_downstream',
      type: 'latency',
      stream: 'downstream',
      toxicity: 1,
      attributes: { latency: rttMs - up, jitter: 0 },
    },
  ];
}

/**
 * A kubeconfig (YAML text) whose clusters at `upstream` (the API server's URL, e.g.
 * `https://127.0.0.1:7443`) point at `proxy` (e.g. `https://127.0.0.1:8475`) instead; credentials,
 * CAs and contexts unchanged. @throws Error when no cluster has that server.
 */
export function proxiedKubeconfig(text, upstream, proxy) {
  const kc = parseYaml(text);
  const from = new URL(upstream).origin;
  let n = 0;
  for (const c of kc.clusters ?? []) {
    if (c.cluster?.server && new URL(c.cluster.server).origin === from) {
      c.cluster.server = new URL(proxy).origin;
      n++;
    }
  }
  if (n === 0) throw new Error(`no cluster of the kubeconfig has the server ${upstream}`);
  return stringify(kc);
}

/** `host:port` of a URL, the form Toxiproxy's `listen` and `upstream` take. */
export function hostPort(url) {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
}

/**
 * Starts toxiproxy-server (API on 127.0.0.1:`apiPort`) and one proxy from 127.0.0.1:`listenPort` to
 * `upstream` (a URL). Resolves with the proxy's URL, `setRtt(ms)` (replaces the toxics) and `stop()`.
 * The server's log goes to `logFile`. @throws Error when the binary is missing or does not answer in 10 s.
 */
export async function startLatencyProxy({ upstream, apiPort, listenPort, logFile }) {
  // scripts/cluster/versions.sh's SPREAD_CACHE.
  const cache =
    process.env.SPREAD_CACHE ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'spread');
  const bin = path.join(cache, 'bin', `toxiproxy-${TOXIPROXY_VERSION}`, 'toxiproxy-server');
  if (!existsSync(bin)) throw new Error(`no ${bin}: run bash scripts/cluster/build-binaries.sh`);
  const toxiproxy = new Toxiproxy(`http://127.0.0.1:${apiPort}`);
  // A server left by an interrupted run would answer for the new one, which cannot bind the port and
  // exits; the proxy's creation would then fail with a bare 409.
  const stale = await toxiproxy.getVersion().catch(() => undefined);
  if (stale !== undefined)
    throw new Error(
      `a Toxiproxy server already answers on 127.0.0.1:${apiPort} (left by an interrupted bench run?): stop it (pkill -f toxiproxy-server) and run again`,
    );
  const log = openSync(logFile, 'a');
  const server = spawn(bin, ['-host', '127.0.0.1', '-port', String(apiPort)], {
    stdio: ['ignore', log, log],
  });
  let exited;
  server.on('exit', (code, signal) => {
    exited = `toxiproxy-server exited (${signal ?? code}); see ${logFile}`;
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (exited) throw new Error(exited);
    try {
      await toxiproxy.getVersion();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        server.kill();
        throw new Error(`toxiproxy-server did not answer on 127.0.0.1:${apiPort} in 10 s: ${error.message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const proxy = await toxiproxy.createProxy({
    name: PROXY_NAME,
    listen: `127.0.0.1:${listenPort}`,
    upstream: hostPort(upstream),
  });
  const url = `${new URL(upstream).protocol}//127.0.0.1:${listenPort}`;
  let active = [];
  return {
    url,
    async setRtt(ms) {
      const toxics = latencyToxics(ms);
      for (const t of active) await t.remove();
      active = [];
      for (const t of toxics) active.push(await proxy.addToxic(t));
    },
    stop() {
      server.kill();
    },
  };
}
