import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import { decodeText } from '../../../src/decode/decode.js';
import { isWaited, rolloutState } from '../../../src/engine/status/registry.js';
import { SHIPPED_GROUP_KINDS, shippedRule } from '../../../src/engine/status/shipped-rules.js';
import { healthRule, readHealthRules } from '../../../src/project/health.js';

const at = { file: 'spread.yaml', line: 3 };
const health = new Map([
  [
    'Widget.example.com',
    healthRule(
      'Widget.example.com',
      { current: "status.phase == 'Ready'", failed: "status.phase == 'Failed'" },
      at,
    ),
  ],
]);
const widget = (status?: object, generation = 2): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', generation },
  ...(status ? { status } : {}),
});

describe('a GroupKind with a health rule', () => {
  test('is waited even without a status the default reading could read', () => {
    expect(isWaited(widget({ phase: 'Pending' }))).toBe(false);
    expect(isWaited(widget({ phase: 'Pending' }), { health })).toBe(true);
    expect(isWaited(widget(), { health })).toBe(true);
  });

  test.each([
    [
      'current',
      widget({ phase: 'Ready' }),
      'Current',
      /^current by its health rule of Widget.example.com \(spread.yaml:3\)$/,
    ],
    [
      "failed, naming the expression and the controller's message",
      widget({ phase: 'Failed', message: 'quota exceeded' }),
      'Failed',
      /^failed by its health rule of Widget.example.com \(spread.yaml:3\): failed: status.phase == 'Failed': quota exceeded$/,
    ],
    [
      'not yet current',
      widget({ phase: 'Pending' }),
      'InProgress',
      /not yet current .*current: status.phase == 'Ready'$/,
    ],
    [
      'no status yet',
      widget(),
      'InProgress',
      /current: status.phase == 'Ready' \(failed: field not found: phase; current: field not found: phase\)/,
    ],
    [
      'a generation not observed yet, whatever the rule says',
      widget({ phase: 'Ready', observedGeneration: 1 }),
      'InProgress',
      /observe the new generation/,
    ],
  ])('%s', (_name, o, status, message) => {
    const state = rolloutState(o, { health });
    expect(state.status).toBe(status);
    expect(state.message).toMatch(message);
  });

  test("names the line of the expression that decided, not the rule's first line", () => {
    const document = decodeText(
      'spread.yaml',
      `# spread.yaml
health:
  Widget.example.com:
    current: has(status.phase) && status.phase == 'Ready'
    failed: has(status.phase) && status.phase == 'Failed'
    inProgress: has(status.phase) && status.phase == 'Provisioning'
`,
    ).values[0];
    const rules = { health: readHealthRules(document?.at(['health'])).rules };
    expect(rolloutState(widget({ phase: 'Failed', message: 'disk quota exceeded' }), rules).message).toBe(
      "failed by its health rule of Widget.example.com (spread.yaml:5): failed: has(status.phase) && status.phase == 'Failed': disk quota exceeded",
    );
    expect(rolloutState(widget({ phase: 'Provisioning' }), rules).message).toMatch(
      /^in progress by its health rule of Widget.example.com \(spread.yaml:6\): inProgress: /,
    );
    expect(rolloutState(widget({ phase: 'Ready' }), rules).message).toBe(
      'current by its health rule of Widget.example.com (spread.yaml:4)',
    );
    expect(rolloutState(widget({ phase: 'Pending' }), rules).message).toMatch(
      /^not yet current by its health rule of Widget.example.com \(spread.yaml:4\): current: /,
    );
  });

  test('without the rule, the default reading: a status without conditions is ready once applied', () => {
    expect(rolloutState(widget({ phase: 'Failed' })).status).toBe('Current');
  });

  test("the project file's rule replaces a shipped one", () => {
    const mine = new Map([
      ['Rollout.argoproj.io', healthRule('Rollout.argoproj.io', { current: 'true' }, at)],
    ]);
    const rollout: KubeObject = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'r', generation: 1 },
    };
    expect(rolloutState(rollout).status).toBe('InProgress');
    expect(rolloutState(rollout, { health: mine }).status).toBe('Current');
  });
});

describe('shipped rules', () => {
  test("cover Rollout and Certificate (HelmRelease's default reading is enough)", () => {
    expect(SHIPPED_GROUP_KINDS).toEqual(['Rollout.argoproj.io', 'Certificate.cert-manager.io']);
    for (const gk of SHIPPED_GROUP_KINDS) expect(shippedRule(gk)?.groupKind).toBe(gk);
    expect(shippedRule('Deployment.apps')).toBeUndefined();
  });
});
