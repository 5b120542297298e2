// Runs one deploy of the workload as a user or a runner would: the CLI (dist/cli/index.js) or the
// Action (dist/index.js under test/integration/action-runner.ts), and hands the running process to a
// fault injector.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { repositoryEnv, runActionStep } from '../integration/action-runner.js';
import { ROOT } from '../integration/helpers.js';

/** What a deploy ended with. */
export interface DeployResult {
  /** Exit code; null when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** stdout and stderr (and the Action's job summary), as far as they were read. */
  readonly output: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** The running deploy, as an injector sees it. */
export interface RunningDeploy {
  readonly child: ChildProcess;
  readonly startedAt: number;
  /** True once the process (the whole tree for the Action) exited. */
  readonly ended: () => boolean;
  /** Resolves true when `count` lines matching `pattern` were printed, false when the deploy ends first. */
  lines(pattern: RegExp, count?: number): Promise<boolean>;
  /** Resolves after `ms`, or at once when the deploy ended (then false). */
  after(ms: number): Promise<boolean>;
}

/** Where and how to deploy. */
export interface DeployTarget {
  readonly dir: string;
  readonly namespace: string;
  readonly name: string;
  readonly kubeconfig: string;
  readonly context: string;
  readonly registry: string;
  /** DOCKER_CONFIG with the registry's credentials (also under the proxy's address). */
  readonly dockerConfig: string;
  readonly leaseDuration: string;
  readonly front: 'cli' | 'action';
}

/** The pids of `pid` and of every descendant of it. */
export function processTree(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [p, pp] of table) if (pp === tree[i]) tree.push(p);
  return tree;
}

/** Sends `signal` to a process and all its descendants, children first found. */
export function killTree(pid: number, signal: NodeJS.Signals): number[] {
  const tree = processTree(pid);
  for (const p of tree) {
    try {
      process.kill(p, signal);
    } catch {
      // already gone
    }
  }
  return tree;
}

/** Runs one deploy; `inject` is called with the running process and awaited before the result returns. */
export async function runDeploy(
  target: DeployTarget,
  inject: (running: RunningDeploy) => Promise<void> = async () => {},
): Promise<DeployResult> {
  const startedAt = Date.now();
  let output = '';
  let ended = false;
  const waiters: { pattern: RegExp; count: number; resolve: (v: boolean) => void }[] = [];
  const endWaiters: (() => void)[] = [];
  const feed = (d: Buffer | string) => {
    output += d;
    for (const w of [...waiters]) {
      const seen = output.split('\n').filter((l) => w.pattern.test(l)).length;
      if (seen >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(true);
      }
    }
  };
  const end = () => {
    ended = true;
    for (const w of waiters.splice(0)) w.resolve(false);
    for (const e of endWaiters.splice(0)) e();
  };
  const running = (child: ChildProcess): RunningDeploy => ({
    child,
    startedAt,
    ended: () => ended,
    lines: (pattern, count = 1) =>
      ended
        ? Promise.resolve(false)
        : new Promise((resolve) => {
            waiters.push({ pattern, count, resolve });
            feed('');
          }),
    after: (ms) =>
      ended
        ? Promise.resolve(false)
        : new Promise((resolve) => {
            const t = setTimeout(() => resolve(!ended), ms);
            endWaiters.push(() => {
              clearTimeout(t);
              resolve(false);
            });
          }),
  });
  let injected: Promise<void> = Promise.resolve();
  const env = {
    ...process.env,
    KUBECONFIG: target.kubeconfig,
    DOCKER_CONFIG: target.dockerConfig,
    // The CLI and the Action deploy one folder as one deployment only from one origin: the CLI runs
    // as in the repository's CI job, with the variables the Action's step has.
    ...repositoryEnv(path.dirname(target.dir)),
  };
  if (target.front === 'cli') {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'dist/cli/index.js'),
        'deploy',
        target.dir,
        '--context',
        target.context,
        '-n',
        target.namespace,
        '--name',
        target.name,
        '--registry',
        target.registry,
        '--no-wait',
        '--no-annotate',
        '--lock-timeout',
        '2m',
        '--lock-lease-duration',
        target.leaseDuration,
        '-o',
        'json',
      ],
      { env, cwd: ROOT },
    );
    child.stdout.on('data', feed);
    child.stderr.on('data', feed);
    // A closed pipe must not crash the harness.
    child.stdout.on('error', () => {});
    child.stderr.on('error', () => {});
    injected = inject(running(child));
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve) => child.on('exit', (c, s) => resolve({ code: c, signal: s })),
    );
    end();
    await injected;
    return { code, signal, output, startedAt, endedAt: Date.now() };
  }
  let child: ChildProcess | undefined;
  const step = await runActionStep({
    entry: path.join(ROOT, 'dist/index.js'),
    workspace: path.dirname(target.dir),
    inputs: {
      path: path.basename(target.dir),
      context: target.context,
      kubeconfig: '',
      namespace: target.namespace,
      name: target.name,
      registry: target.registry,
      wait: 'false',
      prune: 'true',
      'object-annotations': 'false',
      'lock-timeout': '2m',
      'lock-lease-duration': target.leaseDuration,
      annotate: 'false',
      comment: 'false',
    },
    env: {
      KUBECONFIG: target.kubeconfig,
      DOCKER_HOST: process.env.DOCKER_HOST,
      DOCKER_CONFIG: target.dockerConfig,
      // The cluster's BuildKit builder, as docker/setup-buildx-action would have made it the job's.
      BUILDX_CONFIG: process.env.BUILDX_CONFIG,
      BUILDX_BUILDER: process.env.BUILDX_BUILDER,
    },
    onSpawn: (c) => {
      child = c;
      c.stdout?.on('data', feed);
      c.stderr?.on('data', feed);
      injected = inject(running(c));
    },
  });
  end();
  await injected;
  void child;
  return {
    code: step.code,
    signal: null,
    output: `${step.log}\n${step.summary}\n${step.outputsText}`,
    startedAt,
    endedAt: Date.now(),
  };
}
