// A stand-in for a kubelet, for the tests of Jobs' logs: kwok's Nodes have no kubelet, so the API
// server cannot serve `pods/log` for their pods (measured: "dial tcp: lookup spread-worker-1 …: no
// such host"). This adds a Node whose kubelet endpoint is an HTTPS server of the test's on 127.0.0.1:
// the real API server proxies `GET pods/NAME/log?follow=true` to its `/containerLogs/…`, as it does to
// a kubelet. The test plays the kubelet's part for the pods bound to that Node (`nodeName`): their
// status Running, the log lines of a script, then Succeeded or Failed, which the real Job controller reads.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { kubectl } from './helpers.js';

/** What a pod of the stand-in does: the lines its container logs, and its exit code. */
export interface PodScript {
  readonly lines: readonly string[];
  readonly exitCode: number;
}

/** A running stand-in: its Node's name, and `stop` (the Node deleted, the server closed). */
export interface StandIn {
  readonly node: string;
  stop(): Promise<void>;
}

const ctx = ['--context', 'spread-local'];

/**
 * Starts the stand-in Node `node`; `script` says what each pod bound to it does (by its Job's name,
 * the pod's `batch.kubernetes.io/job-name` label). Each container's lines are written 100 ms apart
 * to a follower, and the pod ends 300 ms after the last.
 */
export async function startKubelet(node: string, script: (job: string) => PodScript): Promise<StandIn> {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-kubelet-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const pods = new Map<string, { job: string; started: number }>();
  const server = https.createServer(
    { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
    (req, res) => {
      const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/[^/?]+/.exec(req.url ?? '');
      const pod = m ? pods.get(`${m[1]}/${m[2]}`) : undefined;
      if (!pod) {
        res.writeHead(404).end('no such container');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      const lines = script(pod.job).lines;
      for (const [i, l] of lines.entries()) setTimeout(() => res.write(`${l}\n`), 100 * (i + 1));
      setTimeout(() => res.end(), 100 * (lines.length + 1));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await kubectl([...ctx, 'apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: node, labels: { 'kubernetes.io/hostname': node } },
      // Nothing else is scheduled here: only pods that name it.
      spec: { taints: [{ key: 'spread.rsprd.com/kubelet-stand-in', effect: 'NoSchedule' }] },
    }),
  });
  await kubectl([
    ...ctx,
    'patch',
    'node',
    node,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({
      status: {
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
        daemonEndpoints: { kubeletEndpoint: { Port: port } },
      },
    }),
  ]);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await playPods(node, pods, script).catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    node,
    async stop() {
      stopped = true;
      await loop;
      await kubectl([...ctx, 'delete', 'node', node, '--wait=false'], { allowFail: true });
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One pass of the kubelet's part: new pods of the Node started, started ones ended on time. */
async function playPods(
  node: string,
  pods: Map<string, { job: string; started: number }>,
  script: (job: string) => PodScript,
): Promise<void> {
  const list = JSON.parse(
    (await kubectl([...ctx, 'get', 'pods', '-A', '--field-selector', `spec.nodeName=${node}`, '-o', 'json']))
      .stdout,
  ) as {
    items: {
      metadata: {
        name: string;
        namespace: string;
        labels?: Record<string, string>;
        deletionTimestamp?: string;
      };
      spec: { containers: { name: string; image: string }[] };
      status?: { phase?: string };
    }[];
  };
  for (const p of list.items) {
    const key = `${p.metadata.namespace}/${p.metadata.name}`;
    const job = p.metadata.labels?.['batch.kubernetes.io/job-name'] ?? '';
    const phase = p.status?.phase;
    const now = new Date().toISOString();
    const status = (s: object) =>
      kubectl([
        ...ctx,
        'patch',
        'pod',
        '-n',
        p.metadata.namespace,
        p.metadata.name,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: s }),
      ]);
    if (p.metadata.deletionTimestamp) {
      await kubectl(
        [...ctx, 'delete', 'pod', '-n', p.metadata.namespace, p.metadata.name, '--force', '--grace-period=0'],
        { allowFail: true },
      );
      continue;
    }
    if (phase !== 'Running' && phase !== 'Succeeded' && phase !== 'Failed') {
      pods.set(key, { job, started: Date.now() });
      await status({
        phase: 'Running',
        startTime: now,
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
        containerStatuses: p.spec.containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: '',
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: now } },
        })),
      });
      continue;
    }
    const started = pods.get(key);
    if (phase !== 'Running' || !started) continue;
    const { lines, exitCode } = script(job);
    if (Date.now() - started.started < 100 * (lines.length + 1) + 300) continue;
    await status({
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: now }],
      containerStatuses: p.spec.containers.map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: false,
        restartCount: 0,
        started: false,
        state: {
          terminated: {
            exitCode,
            reason: exitCode === 0 ? 'Completed' : 'Error',
            startedAt: now,
            finishedAt: now,
          },
        },
      })),
    });
  }
}
