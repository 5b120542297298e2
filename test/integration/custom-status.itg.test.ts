import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { poll } from '../../src/base/poll.js';
import { RolloutError } from '../../src/engine/wait/waiter.js';
import { DeployError, deploy } from '../../src/frontend/deploy.js';
import { kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

// A custom resource's rollout is read from its status (observedGeneration; Ready, Reconciling and
// Stalled conditions), which its controller writes. The test plays that controller: it patches the
// status subresource while the deploy waits.
const ns = uniqueName('itg-crstatus');
const group = `${uniqueName('w')}.example.com`;
const ctx = ['--context', 'spread-local'];

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: integer}}}
            status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
const widget = (size: number) => `apiVersion: ${group}/v1
kind: Widget
metadata:
  name: w
spec:
  size: ${size}
`;

function dir(size: number): string {
  return writeDir('crstatus', { '.k2e/crd.yaml': crd, '.k2e/widget.yaml': widget(size) });
}

/** Writes the Widget's status, as its controller would. */
async function setStatus(status: object): Promise<void> {
  await kubectl([
    ...ctx,
    '-n',
    ns,
    'patch',
    `widgets.${group}`,
    'w',
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status }),
  ]);
}

/** A status condition as a controller writes it (lastTransitionTime is required by the schema of metav1.Condition). */
function condition(type: string, status: string, reason: string, message = '') {
  return {
    type,
    status,
    reason,
    ...(message ? { message } : {}),
    lastTransitionTime: '2026-01-01T00:00:00Z',
  };
}

const OBSERVING = /Widget\.\S+ \S+\/w: waiting for the controller to observe the new generation/;

/** Starts a deploy of `size`; answers its promise and the progress lines it logs. */
function startDeploy(size: number) {
  const lines: string[] = [];
  const done = deploy(
    localDeploy(dir(size), ns, {
      name: 'crstatus',
      timeoutMs: 120_000,
      logger: { ...silentLogger, info: (m) => lines.push(m) },
    }),
  );
  // Settled by the test; a failure before then is read there.
  done.catch(() => undefined);
  return { done, lines };
}

/** Resolves with the first progress line of the deploy that says `why` of the Widget. */
async function widgetLine(lines: readonly string[], why: RegExp): Promise<string> {
  const line = await poll(() => lines.find((l) => why.test(l) && /waiting for .*Widget\./.test(l)), {
    intervalMs: 50,
    timeoutMs: 100_000,
  });
  if (!line) throw new Error(`the deploy never logged ${why} of the Widget; it logged:\n${lines.join('\n')}`);
  return line;
}

describe('custom resources are waited on by their status conditions', () => {
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
    await kubectl([...ctx, 'delete', 'crd', `widgets.${group}`, '--wait=false'], { allowFail: true });
  });

  test('a Widget without status is ready once applied; with one, the deploy waits for Ready and fails on Stalled', async () => {
    // No status yet: nothing a wait could read (kstatus: Current).
    const first = startDeploy(1);
    const firstReport = await first.done;
    expect(firstReport.rollout.map((r) => r.name)).not.toContain('w');

    // The controller saw generation 1 and is not ready yet.
    await setStatus({
      observedGeneration: 1,
      conditions: [condition('Ready', 'False', 'Provisioning', 'creating')],
    });
    const second = startDeploy(2);
    await widgetLine(second.lines, OBSERVING);
    await setStatus({
      observedGeneration: 2,
      conditions: [condition('Ready', 'False', 'Provisioning', 'creating')],
    });
    await widgetLine(second.lines, /Widget\.\S+ \S+\/w: not ready: Provisioning: creating/);
    await setStatus({
      observedGeneration: 2,
      conditions: [condition('Ready', 'True', 'Succeeded')],
    });
    const secondReport = await second.done;
    expect(secondReport.rollout).toContainEqual(
      expect.objectContaining({ kind: 'Widget', name: 'w', ready: true, message: 'ready' }),
    );

    // The controller gives up on generation 3: the deploy fails, naming the reason.
    const third = startDeploy(3);
    await widgetLine(third.lines, OBSERVING);
    await setStatus({
      observedGeneration: 3,
      conditions: [
        condition('Stalled', 'True', 'InvalidSpec', 'size must be even'),
        condition('Ready', 'False', 'InvalidSpec'),
      ],
    });
    const error = await third.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeployError);
    const cause = (error as DeployError).cause;
    expect(cause).toBeInstanceOf(RolloutError);
    expect((cause as RolloutError).message).toMatch(
      /Widget\.\S+ \S+\/w: stalled: InvalidSpec: size must be even/,
    );
  });
});
