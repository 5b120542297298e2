// Which comparisons a drift run makes: every declared environment but previews, one by name, or the
// deployment as given when spread.yaml declares none.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { driftTargets } from '../../../src/frontend/drift-targets.js';

function project(text?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'spread-drift-targets-'));
  if (text !== undefined) writeFileSync(join(dir, 'spread.yaml'), text);
  return dir;
}

const DIR = project(`environments:
  pr:
    preview:
      namespace: web-pr-{pr}
  staging:
    context: a
    namespace: web
    path: overlays/staging
  production:
    context: b
    namespace: web
`);

describe('driftTargets', () => {
  test('every declared environment in order, each with its context, namespace and folder; previews skipped', () => {
    const targets = driftTargets(DIR, 'all');
    expect(targets.map((t) => [t.environment, t.target?.context, t.target?.namespace, t.skipped])).toEqual([
      ['pr', undefined, undefined, 'a preview environment: one per pull request'],
      ['staging', 'a', 'web', undefined],
      ['production', 'b', 'web', undefined],
    ]);
    expect(targets[1]?.target?.path).toBe(join(DIR, 'overlays/staging'));
  });

  test('one by name; a name that is not declared is an error', () => {
    expect(driftTargets(DIR, 'production').map((t) => t.environment)).toEqual(['production']);
    expect(() => driftTargets(DIR, 'qa')).toThrow(
      /environment qa is not declared .*declared: pr, staging, production/,
    );
  });

  test('no declaration: the deployment as given, whatever the name (a GitHub environment’s)', () => {
    expect(driftTargets(project(), 'production')).toEqual([{}]);
    expect(driftTargets(project('drift: {}\n'))).toEqual([{}]);
  });
});
