import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { promotionTargets } from '../../../src/frontend/promote.js';

function project(yaml: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'spread-promote-'));
  writeFileSync(path.join(dir, 'spread.yaml'), yaml);
  return dir;
}

const DECLARED = `environments:
  staging:
    context: stg
    namespace: shop-staging
    path: overlays/staging
  production:
    context: prod
    namespace: shop
    path: overlays/production
    helmValues: values-prod.yaml
    after: staging
  canary:
    context: prod
    namespace: shop-canary
`;

describe('the environments of a promotion', () => {
  test("--from defaults to the target's after:, each resolved with its context, namespace and folder", () => {
    const dir = project(DECLARED);
    const { from, to } = promotionTargets(dir, undefined, 'production');
    expect(from).toMatchObject({
      context: 'stg',
      namespace: 'shop-staging',
      path: path.join(dir, 'overlays/staging'),
    });
    expect(from.environment.name).toBe('staging');
    expect(to).toMatchObject({
      context: 'prod',
      namespace: 'shop',
      path: path.join(dir, 'overlays/production'),
      helmValues: ['values-prod.yaml'],
    });
  });

  test('an explicit --from wins over after:', () => {
    expect(promotionTargets(project(DECLARED), 'canary', 'production').from.environment.name).toBe('canary');
  });

  test.each([
    [undefined, 'canary', /environment canary declares no after: in spread.yaml.*--from/],
    ['production', 'production', /cannot promote environment production to itself/],
    [
      'staging',
      'prod',
      /environment prod is not declared in spread.yaml \(declared: staging, production, canary\)/,
    ],
    ['qa', 'production', /environment qa is not declared/],
  ])('from %s to %s is refused', (from, to, message) => {
    expect(() => promotionTargets(project(DECLARED), from, to)).toThrow(message);
  });

  test('a directory without environments says where to declare them', () => {
    expect(() => promotionTargets(project('health: {}\n'), undefined, 'production')).toThrow(
      /declares no environments \(docs\/environments\.md\)/,
    );
  });
});
