import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { poll } from '../../src/base/poll.js';
import { DeployError, deploy } from '../../src/frontend/deploy.js';
import { kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

// The health rules spread ships (src/engine/status/shipped-rules.ts), and the default reading where
// none is shipped (Flux's HelmRelease), against the projects' real CRDs (scripts/cluster/fetch-crds.sh brings them from the Go module proxy into the cache). The
// test plays each controller, writing statuses as its source writes them, so each patch is also
// checked by the real CRD's schema. No project file: the shipped rules alone decide.
const ns = uniqueName('health-itg-shipped');
const ctx = ['--context', 'spread-local'];
const repo = path.resolve(import.meta.dirname, '../..');
const T = '2026-01-01T00:00:00Z';

interface Kind {
  readonly groupKind: string;
  readonly crd: string;
  readonly resource: string;
  readonly name: string;
  readonly object: (size: number) => string;
  /** Statuses as the controller writes them, at generation `g`. */
  readonly progressing: (g: number) => object;
  readonly current: (g: number) => object;
  readonly failed: (g: number) => object;
  readonly failedMessage: RegExp;
  /** Its progress line while waited: by the shipped rule, or (HelmRelease) by the default reading. */
  readonly waiting: RegExp;
  /** The rollout's message once current. */
  readonly currentMessage: string;
}

/** An Argo Rollouts condition (lastUpdateTime and message are required by its CRD). */
const rolloutCondition = (type: string, status: string, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
  lastUpdateTime: T,
});
const condition = (type: string, status: string, reason: string, message: string, g?: number) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
  ...(g !== undefined ? { observedGeneration: g } : {}),
});

const KINDS: readonly Kind[] = [
  {
    groupKind: 'Rollout.argoproj.io',
    crd: 'argo-rollouts-v1.8.3/rollout-crd.yaml',
    resource: 'rollouts.argoproj.io',
    name: 'web',
    object: (size) => `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27", env: [{name: SIZE, value: "${size}"}]}]}
  strategy: {canary: {steps: [{setWeight: 50}]}}
`,
    // rollout/sync.go: observedGeneration as a string, phase and message computed by the controller.
    progressing: (g) => ({
      observedGeneration: String(g),
      phase: 'Progressing',
      message: 'more replicas need to be updated',
      conditions: [
        rolloutCondition(
          'Progressing',
          'True',
          'ReplicaSetUpdated',
          'ReplicaSet "web-5d4b8" is progressing.',
        ),
      ],
    }),
    current: (g) => ({
      observedGeneration: String(g),
      phase: 'Healthy',
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      conditions: [
        rolloutCondition('Available', 'True', 'AvailableReason', 'Rollout has minimum availability'),
        rolloutCondition(
          'Progressing',
          'True',
          'NewReplicaSetAvailable',
          'Rollout "web" has successfully progressed.',
        ),
        rolloutCondition('Healthy', 'True', 'RolloutHealthy', 'Rollout is healthy'),
      ],
    }),
    failed: (g) => ({
      observedGeneration: String(g),
      phase: 'Degraded',
      message: 'ProgressDeadlineExceeded: ReplicaSet "web-7c9f6" has timed out progressing.',
      conditions: [
        rolloutCondition(
          'Progressing',
          'False',
          'ProgressDeadlineExceeded',
          'ReplicaSet "web-7c9f6" has timed out progressing.',
        ),
      ],
    }),
    failedMessage: /failed: has\(status\.phase\) && status\.phase == 'Degraded': ProgressDeadlineExceeded/,
    waiting: /by its health rule of Rollout\.argoproj\.io \(shipped with spread\)/,
    currentMessage: 'current by its health rule of Rollout.argoproj.io (shipped with spread)',
  },
  {
    groupKind: 'Certificate.cert-manager.io',
    crd: 'cert-manager-v1.19.1/cert-manager.io_certificates.yaml',
    resource: 'certificates.cert-manager.io',
    name: 'web-tls',
    object: (size) => `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls}
spec:
  secretName: web-tls
  dnsNames: [web-${size}.example.com]
  issuerRef: {name: ca, kind: Issuer}
`,
    // trigger_controller.go and readiness_controller.go: each condition with its observedGeneration.
    progressing: (g) => ({
      conditions: [
        condition('Issuing', 'True', 'DoesNotExist', 'Issuing certificate as Secret does not exist', g),
        condition('Ready', 'False', 'DoesNotExist', 'Issuing certificate as Secret does not exist', g),
      ],
    }),
    current: (g) => ({
      revision: 1,
      notBefore: T,
      notAfter: '2026-04-01T00:00:00Z',
      renewalTime: '2026-03-02T00:00:00Z',
      conditions: [condition('Ready', 'True', 'Ready', 'Certificate is up to date and has not expired', g)],
    }),
    // issuing_controller.go failIssueCertificate: Issuing False with the request's reason.
    failed: (g) => ({
      lastFailureTime: T,
      failedIssuanceAttempts: 1,
      conditions: [
        condition('Ready', 'True', 'Ready', 'Certificate is up to date and has not expired', g - 1),
        condition(
          'Issuing',
          'False',
          'Failed',
          'The certificate request has failed to complete and will be retried: issuer ca not found',
          g,
        ),
      ],
    }),
    failedMessage: /failed: has\(status\.conditions\) && status\.conditions\.exists\(c, c\.type == 'Issuing'/,
    waiting: /by its health rule of Certificate\.cert-manager\.io \(shipped with spread\)/,
    currentMessage: 'current by its health rule of Certificate.cert-manager.io (shipped with spread)',
  },
  {
    groupKind: 'HelmRelease.helm.toolkit.fluxcd.io',
    crd: 'helm-controller-v1.4.0/helm.toolkit.fluxcd.io_helmreleases.yaml',
    resource: 'helmreleases.helm.toolkit.fluxcd.io',
    name: 'web',
    object: (size) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web}
spec:
  interval: 5m
  chart:
    spec: {chart: podinfo, version: "6.7.${size}", sourceRef: {kind: HelmRepository, name: podinfo}}
`,
    // helmrelease_controller.go, reconcile/atomic_release.go: kstatus conditions; observedGeneration
    // written when a reconcile ends (a success or a terminal error).
    progressing: (g) => ({
      observedGeneration: g - 1,
      conditions: [
        condition('Reconciling', 'True', 'Progressing', 'Fulfilling prerequisites', g),
        condition('Ready', 'Unknown', 'Progressing', 'Reconciliation in progress', g),
      ],
    }),
    current: (g) => ({
      observedGeneration: g,
      lastAttemptedGeneration: g,
      lastAttemptedReleaseAction: 'install',
      conditions: [
        condition('Ready', 'True', 'InstallSucceeded', 'Helm install succeeded for release web', g),
        condition('Released', 'True', 'InstallSucceeded', 'Helm install succeeded for release web', g),
      ],
    }),
    failed: (g) => ({
      observedGeneration: g,
      lastAttemptedGeneration: g,
      lastAttemptedReleaseAction: 'upgrade',
      conditions: [
        condition('Stalled', 'True', 'RetriesExceeded', 'Failed to upgrade after 1 attempt(s)', g),
        condition('Ready', 'False', 'UpgradeFailed', 'Helm upgrade failed for release web: timed out', g),
      ],
    }),
    // No rule: the default reading (kstatus) fails a Stalled object.
    failedMessage: /: stalled: RetriesExceeded: Failed to upgrade after 1 attempt\(s\)/,
    // The CRD defaults status.observedGeneration to -1: waited from its first apply.
    waiting: /waiting for the controller to observe the new generation/,
    currentMessage: 'ready',
  },
];

async function setStatus(kind: Kind, status: object): Promise<void> {
  await kubectl([
    ...ctx,
    ...['-n', ns, 'patch', kind.resource, kind.name, '--subresource=status', '--type=merge'],
    ...['-p', JSON.stringify({ status })],
  ]);
}

function startDeploy(kind: Kind, size: number) {
  const lines: string[] = [];
  const started = Date.now();
  const root = writeDir('shipped', { '.k2e/object.yaml': kind.object(size) });
  const done = deploy(
    localDeploy(root, ns, {
      name: `shipped-${kind.name}-${kind.groupKind.split('.')[0]!.toLowerCase()}`,
      timeoutMs: 120_000,
      logger: { ...silentLogger, info: (m) => lines.push(m) },
    }),
  );
  let settled = false;
  done.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { done, lines, started, settled: () => settled };
}

async function waitingLine(lines: readonly string[], kind: Kind): Promise<string> {
  const line = await poll(
    () => lines.find((l) => l.includes(`${kind.groupKind} ${ns}/${kind.name}:`) && kind.waiting.test(l)),
    { intervalMs: 50, timeoutMs: 60_000 },
  );
  if (!line)
    throw new Error(
      `the deploy never waited on ${kind.groupKind} by its rule; it logged:\n${lines.join('\n')}`,
    );
  return line;
}

describe('the shipped health rules against the real CRDs', () => {
  beforeAll(async () => {
    const cache = execFileSync('bash', [path.join(repo, 'scripts/cluster/fetch-crds.sh')], {
      encoding: 'utf8',
    }).trim();
    for (const k of KINDS) await kubectl([...ctx, 'apply', '--server-side', '-f', path.join(cache, k.crd)]);
    await kubectl([
      ...ctx,
      ...['wait', '--for=condition=Established', '--timeout=60s'],
      ...KINDS.map((k) => `crd/${k.resource}`),
    ]);
    await kubectl([...ctx, 'create', 'namespace', ns]);
  }, 180_000);
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
    for (const k of KINDS)
      await kubectl([...ctx, 'delete', 'crd', k.resource, '--wait=false'], { allowFail: true });
  });

  test.each(KINDS)(
    '$groupKind: waited from its first apply, current when its controller says, failed early',
    async (kind) => {
      // Created without any status of its controller: waited until the controller says current.
      const first = startDeploy(kind, 1);
      await waitingLine(first.lines, kind);
      await setStatus(kind, kind.progressing(1));
      await new Promise((r) => setTimeout(r, 1000));
      expect(first.settled()).toBe(false);
      await setStatus(kind, kind.current(1));
      const report = await first.done;
      expect(report.rollout).toContainEqual(
        expect.objectContaining({
          name: kind.name,
          ready: true,
          message: kind.currentMessage,
        }),
      );

      // A new generation: the status of the previous one does not make it current; a failure fails it early.
      const second = startDeploy(kind, 2);
      await waitingLine(second.lines, kind);
      await new Promise((r) => setTimeout(r, 1000));
      expect(second.settled()).toBe(false);
      await setStatus(kind, kind.failed(2));
      const error = await second.done.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DeployError);
      expect(Date.now() - second.started).toBeLessThan(60_000);
      expect((error as Error).message).toMatch(
        new RegExp(`${kind.groupKind.replaceAll('.', '\\.')} \\S+/${kind.name}: `),
      );
      expect((error as Error).message).toMatch(kind.failedMessage);
    },
    180_000,
  );
});
