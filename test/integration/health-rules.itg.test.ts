import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/base/logger.js';
import { poll } from '../../src/base/poll.js';
import { DeployError, deploy } from '../../src/frontend/deploy.js';
import { status } from '../../src/frontend/manage.js';
import { kubeconfigPath, kubectl, localDeploy, uniqueName, writeDir } from './helpers.js';

// A custom resource whose status follows no convention (a `phase`, no conditions) is waited on by
// the CEL rule of spread.yaml's `health` section. The test plays the controller: it patches the
// status subresource while the deploy waits.
const ns = uniqueName('health-itg-rule');
const group = `${uniqueName('g')}.example.com`;
const ctx = ['--context', 'spread-local'];

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: databases.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: databases, singular: database, kind: Database}
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
const database = (size: number) =>
  `apiVersion: ${group}/v1\nkind: Database\nmetadata:\n  name: db\nspec:\n  size: ${size}\n`;
const RULE = `health:
  Database.${group}:
    current: has(status.phase) && status.phase == 'Ready'
    failed: has(status.phase) && status.phase == 'Failed'
`;

function dir(size: number, rule: boolean): string {
  return writeDir('dbs', {
    '.k2e/crd.yaml': crd,
    '.k2e/db.yaml': database(size),
    ...(rule ? { 'spread.yaml': RULE } : {}),
  });
}

/** Writes the Database's status, as its controller would. */
async function setStatus(status: object): Promise<void> {
  await kubectl([
    ...ctx,
    ...['-n', ns, 'patch', `databases.${group}`, 'db', '--subresource=status', '--type=merge'],
    ...['-p', JSON.stringify({ status })],
  ]);
}

/** Starts a deploy; answers its promise and the progress lines it logs. */
function startDeploy(size: number, rule: boolean) {
  const lines: string[] = [];
  const started = Date.now();
  const done = deploy(
    localDeploy(dir(size, rule), ns, {
      name: 'dbs',
      timeoutMs: 120_000,
      logger: { ...silentLogger, info: (m) => lines.push(m) },
    }),
  );
  done.catch(() => undefined);
  return { done, lines, started };
}

async function dbLine(lines: readonly string[], why: RegExp): Promise<string> {
  const line = await poll(() => lines.find((l) => why.test(l) && /Database\./.test(l)), {
    intervalMs: 50,
    timeoutMs: 100_000,
  });
  if (!line)
    throw new Error(`the deploy never logged ${why} of the Database; it logged:\n${lines.join('\n')}`);
  return line;
}

describe('a health rule in spread.yaml decides when a custom resource is ready', () => {
  beforeAll(async () => {
    await kubectl([...ctx, 'create', 'namespace', ns]);
  });
  afterAll(async () => {
    await kubectl([...ctx, 'delete', 'namespace', ns, '--wait=false'], { allowFail: true });
    await kubectl([...ctx, 'delete', 'crd', `databases.${group}`, '--wait=false'], { allowFail: true });
  });

  test('waits until the rule says current, fails early when it says failed; without the rule, as today', async () => {
    // No status yet: the rule's current does not match, so the deploy waits (without a rule it would not).
    const first = startDeploy(1, true);
    await dbLine(first.lines, /not yet current by its health rule of Database\.\S+ \(spread\.yaml:3\)/);
    await setStatus({ phase: 'Provisioning' });
    // A status that is not Ready yet: still waiting a second later.
    let settled = false;
    void first.done.finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect(settled).toBe(false);
    await setStatus({ phase: 'Ready' });
    const report = await first.done;
    expect(report.rollout).toContainEqual(
      expect.objectContaining({
        kind: 'Database',
        name: 'db',
        ready: true,
        message: expect.stringMatching(/^current by its health rule of Database\.\S+ \(spread\.yaml:3\)$/),
      }),
    );

    // The controller says Failed: the deploy fails at once, long before its timeout, naming the expression.
    await setStatus({ phase: 'Provisioning' });
    const second = startDeploy(2, true);
    await dbLine(second.lines, /not yet current/);
    await setStatus({ phase: 'Failed', message: 'disk quota exceeded' });
    const error = await second.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeployError);
    expect(Date.now() - second.started).toBeLessThan(60_000);
    expect(String((error as Error).message)).toMatch(
      /Database\.\S+ \S+\/db: failed by its health rule of Database\.\S+ \(spread\.yaml:4\): failed: has\(status\.phase\) && status\.phase == 'Failed': disk quota exceeded/,
    );

    // spread status reads the same rule: the Database's health, beside its state against the directory.
    const seen = await status({
      path: dir(2, true),
      name: 'dbs',
      namespace: ns,
      logger: silentLogger,
      cluster: { kubeconfig: { paths: [kubeconfigPath()] }, context: 'spread-local' },
    });
    expect(seen.root.objects.find((o) => o.kind === 'Database')?.health).toEqual({
      status: 'Failed',
      message: expect.stringMatching(
        /^failed by its health rule of Database\.\S+ \(spread\.yaml:4\): failed: /,
      ),
    });

    // The same Database without the rule: no condition, no observedGeneration: ready once applied.
    const third = startDeploy(3, false);
    const plain = await third.done;
    expect(plain.rollout.map((r) => r.kind)).not.toContain('Database');
  });

  test("a rule that does not compile fails the deploy before anything is written, at spread.yaml's line", async () => {
    const root = writeDir('dbs-bad', {
      '.k2e/db.yaml': database(1).replace('name: db', 'name: db-never'),
      'spread.yaml': `health:\n  Database.${group}:\n    current: status.phase = 'Ready'\n    failed: nosuch(status)\n`,
    });
    const error = await deploy(localDeploy(root, ns, { name: 'dbs-bad' })).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(
      /2 errors in the input:\n {2}spread\.yaml:3: health rule Database\.\S+: current: syntax error.*\n {2}spread\.yaml:4: health rule Database\.\S+: failed: column 1: unknown function nosuch\(\)/,
    );
    const left = await kubectl([...ctx, '-n', ns, 'get', `databases.${group}`, 'db-never'], {
      allowFail: true,
    });
    expect(left.stderr).toMatch(/not found/);
  });
});
