// The Action as one leg of a fleet's matrix (src/action/declared.ts): the input cluster picks one of
// the environment's clusters, with its context, namespace and values; without it a fleet is refused.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { declaredEnvironment } from '../../../src/action/declared.js';
import { actionText } from '../../../src/action/logger.js';
import type { RunnerEnv } from '../../../src/action/runner.js';

const DIR = mkdtempSync(join(tmpdir(), 'spread-leg-'));
writeFileSync(
  join(DIR, 'spread.yaml'),
  `environments:
  production:
    namespace: web
    clusters:
      - { name: eu-1, context: a, helmSet: { region: eu-west-1 } }
      - { name: us-1, context: b, namespace: web-us, helmSet: { region: us-east-1 } }
`,
);
const inputs = {
  environment: 'production',
  environments: [],
  context: '',
  namespace: '',
  helmValues: [],
  helmSet: {},
  mode: 'deploy' as const,
};
const push = { eventName: 'push', refName: 'main', headRef: '', baseRef: '' } as RunnerEnv;

describe('the input cluster', () => {
  test('deploys that cluster of the fleet: its context, namespace and values', () => {
    const choice = declaredEnvironment(DIR, { ...inputs, cluster: 'us-1' }, push);
    expect(choice.kind).toBe('environment');
    if (choice.kind !== 'environment') return;
    expect(choice.target).toMatchObject({
      context: 'b',
      namespace: 'web-us',
      helmSet: { region: 'us-east-1' },
      cluster: { name: 'us-1' },
    });
  });

  test('an unknown cluster is an error naming the fleet; a fleet without one is refused', () => {
    expect(() => declaredEnvironment(DIR, { ...inputs, cluster: 'ap-1' }, push)).toThrow(
      'cluster ap-1: environment production lists no such cluster (its clusters: eu-1, us-1)',
    );
    // The Action spells the setting as its input (actionText, as its failure does).
    let message = '';
    try {
      declaredEnvironment(DIR, inputs, push);
    } catch (error) {
      message = actionText((error as Error).message);
    }
    expect(message).toMatch(
      /is a fleet of 2 clusters \(eu-1, us-1\); this takes one: name it with the input cluster/,
    );
  });
});
