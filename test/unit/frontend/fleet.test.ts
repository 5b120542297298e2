// A fleet as the front ends resolve it (src/frontend/fleet.ts, resolveEnvironment with a cluster):
// each cluster's context, namespace and Helm values (environment, then cluster, then given), the waves
// as declared, `--cluster` picking legs, and a context missing for any cluster failing before any write.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { silentLogger } from '../../../src/base/logger.js';
import type { DeployRequest } from '../../../src/frontend/deploy.js';
import { resolveEnvironment } from '../../../src/frontend/environment.js';
import { fleetPlan } from '../../../src/frontend/fleet.js';
import { environmentNamed } from '../../../src/project/environments.js';
import { loadEnvironments } from '../../../src/project/load.js';

const dir = mkdtempSync(join(tmpdir(), 'spread-fleet-'));
writeFileSync(
  join(dir, 'spread.yaml'),
  `environments:
  production:
    namespace: web
    helmSet: { replicas: 3, region: none }
    clusters:
      - { name: eu-1, context: a, helmSet: { region: eu-west-1 } }
      - { name: eu-2, context: b, namespace: web-eu, helmValues: eu.yaml, helmSet: { region: eu-west-2 } }
      - { name: us-1, context: c }
    waves:
      - { name: canary, clusters: [eu-1], soak: 30s }
      - { name: rest, maxParallel: 1 }
`,
);
const kubeconfig = (contexts: string[]) => ({
  content: `apiVersion: v1
kind: Config
clusters: [{name: k, cluster: {server: https://127.0.0.1:1}}]
users: [{name: u, user: {token: t}}]
contexts: [${contexts.map((c) => `{name: ${c}, context: {cluster: k, user: u}}`).join(', ')}]
current-context: ${contexts[0]}
`,
});
const production = environmentNamed(loadEnvironments(dir)!, 'production')!;

function plan(
  contexts: string[],
  only: string[] = [],
  given = {},
  { environment = production, wait = true, mode = 'deploy' as 'deploy' | 'plan' } = {},
) {
  return fleetPlan({
    dir,
    environment,
    mode,
    given,
    only,
    logger: silentLogger,
    request: (target) =>
      ({
        path: target.path,
        kubeconfig: kubeconfig(contexts),
        ...(target.context ? { context: target.context } : {}),
        namespace: target.namespace,
        ...(target.expect ? { expectCluster: target.expect } : {}),
        mode,
        wait,
        timeoutMs: 1000,
        forceConflicts: false,
        concurrency: 2,
        prune: true,
        charts: { helmValues: target.helmValues, helmSet: target.helmSet },
        logger: silentLogger,
      }) as DeployRequest,
  });
}

describe('fleetPlan', () => {
  test('the declared waves, each cluster with its namespace and values: environment, cluster, given', () => {
    const waves = plan(['a', 'b', 'c'], [], { helmSet: { replicas: '5' } });
    expect(waves.map((w) => [w.name, w.clusters.map((c) => c.name), w.maxParallel, w.soakMs])).toEqual([
      ['canary', ['eu-1'], undefined, 30_000],
      ['rest', ['eu-2', 'us-1'], 1, undefined],
    ]);
    const eu2 = waves[1]!.clusters[0]!.options;
    expect(eu2.namespace).toBe('web-eu');
    expect(eu2.charts).toEqual({ helmValues: ['eu.yaml'], helmSet: { replicas: '5', region: 'eu-west-2' } });
    expect(waves[1]!.clusters[1]!.options.charts?.helmSet).toEqual({ replicas: '5', region: 'none' });
  });

  test('--cluster keeps those legs in their waves and drops empty waves; an unknown one is an error', () => {
    expect(plan(['a', 'b', 'c'], ['us-1']).map((w) => [w.name, w.clusters.map((c) => c.name)])).toEqual([
      ['rest', ['us-1']],
    ]);
    expect(() => plan(['a', 'b', 'c'], ['us-9'])).toThrow(
      '--cluster us-9: environment production lists no such cluster (its clusters: eu-1, eu-2, us-1)',
    );
  });

  test('a context missing for a cluster of a later wave fails the fleet before any cluster is deployed', () => {
    expect(() => plan(['a', 'b'])).toThrow(/context "?c"?/);
  });

  test("a later wave's cluster whose context reaches another server fails the plan, before any write", () => {
    const other = mkdtempSync(join(tmpdir(), 'spread-fleet-'));
    writeFileSync(
      join(other, 'spread.yaml'),
      `environments:
  production:
    clusters:
      - { name: eu-1, context: a, server: https://127.0.0.1:1 }
      - { name: us-1, context: c, server: https://10.0.0.9:6443 }
    waves:
      - { name: canary, clusters: [eu-1] }
      - { name: rest }
`,
    );
    const environment = environmentNamed(loadEnvironments(other)!, 'production')!;
    expect(() => plan(['a', 'c'], [], {}, { environment })).toThrow(
      'wrong cluster: environment production is server https://10.0.0.9:6443 (spread.yaml:5), but context c reaches server https://127.0.0.1:1; nothing was written, nothing built',
    );
    expect(plan(['a', 'c'], ['eu-1'], {}, { environment }).map((w) => w.name)).toEqual(['canary']);
  });

  test('--no-wait is refused for a fleet of more than one wave, not for one wave nor a plan', () => {
    expect(() => plan(['a', 'b', 'c'], [], {}, { wait: false })).toThrow(
      'environment production deploys in 2 waves (canary, rest), and a wave starts only when the previous is healthy; --no-wait cannot tell',
    );
    expect(plan(['a', 'b', 'c'], ['eu-2', 'us-1'], {}, { wait: false })).toHaveLength(1);
    expect(plan(['a', 'b', 'c'], [], {}, { wait: false, mode: 'plan' })).toHaveLength(2);
  });
});

describe('resolveEnvironment with a cluster (one leg of a fleet, the Action input cluster)', () => {
  test("the named cluster's context, namespace and values; a fleet without a cluster is refused", () => {
    expect(resolveEnvironment(dir, 'production', {}, 'eu-2')).toMatchObject({
      context: 'b',
      namespace: 'web-eu',
      helmValues: ['eu.yaml'],
      helmSet: { replicas: '3', region: 'eu-west-2' },
    });
    expect(() => resolveEnvironment(dir, 'production', {}, 'nope')).toThrow(
      'cluster nope: environment production lists no such cluster (its clusters: eu-1, eu-2, us-1)',
    );
    expect(() => resolveEnvironment(dir, 'production', {})).toThrow(
      /is a fleet of 3 clusters \(eu-1, eu-2, us-1\)/,
    );
  });
});
