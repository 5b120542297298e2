import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  LayerCache,
  type LayerCacheInput,
  layerCacheKey,
  loadedImages,
} from '../../../src/image/layer-cache.js';

const web: LayerCacheInput = {
  repository: 'localhost:5000/team-a/web',
  contextDigest: `sha256:${'a'.repeat(64)}`,
};
const api: LayerCacheInput = {
  repository: 'localhost:5000/team-a/api',
  contextDigest: `sha256:${'b'.repeat(64)}`,
};

describe('layerCacheKey', () => {
  const base = layerCacheKey([web, api], 'linux-x64');

  test('the key is the restore prefix plus a digest of the builds', () => {
    expect(base.restorePrefix).toMatch(/^spread-layers-v1-linux-x64-[0-9a-f]{16}-$/);
    expect(base.key).toMatch(new RegExp(`^${base.restorePrefix}[0-9a-f]{16}$`));
  });

  test.each<[string, LayerCacheInput[], 'same key' | 'same prefix' | 'other prefix']>([
    ['the same builds in another order', [api, web], 'same key'],
    ['a changed context', [web, { ...api, contextDigest: `sha256:${'c'.repeat(64)}` }], 'same prefix'],
    ['a build arg', [web, { ...api, buildArgs: { A: '1' } }], 'same prefix'],
    ['a target', [web, { ...api, target: 'prod' }], 'same prefix'],
    ['another set of images', [web], 'other prefix'],
    ['another repository', [web, { ...api, repository: 'localhost:5000/team-b/api' }], 'other prefix'],
  ])('%s: %s', (_, builds, expected) => {
    const k = layerCacheKey(builds, 'linux-x64');
    expect(k.key === base.key).toBe(expected === 'same key');
    expect(k.restorePrefix === base.restorePrefix).toBe(expected !== 'other prefix');
  });

  test('build args in any order give the same key', () => {
    const a = layerCacheKey([{ ...web, buildArgs: { A: '1', B: '2' } }], 'linux-x64');
    const b = layerCacheKey([{ ...web, buildArgs: { B: '2', A: '1' } }], 'linux-x64');
    expect(a.key).toBe(b.key);
  });

  test('another platform: another prefix', () => {
    expect(layerCacheKey([web, api], 'linux-arm64').restorePrefix).not.toBe(base.restorePrefix);
  });
});

describe('loadedImages', () => {
  test.each([
    ['a tagged image', [{ stream: 'Loaded image: localhost:5000/web:1\n' }], ['localhost:5000/web:1']],
    [
      'two images in one message, and an untagged one',
      [
        { stream: 'Loaded image: a:1\nLoaded image: b:2\n' },
        { stream: `Loaded image ID: sha256:${'d'.repeat(64)}\n` },
      ],
      ['a:1', 'b:2', `sha256:${'d'.repeat(64)}`],
    ],
    ['progress only', [{ status: 'Loading layer', progress: '[=>  ]' }], []],
  ])('%s', (_, messages, names) => {
    expect(loadedImages(messages)).toEqual(names);
  });
});

describe('LayerCache', () => {
  test('a store that never answers: the restore gives up after restoreTimeoutMs with a warning', async () => {
    const warnings: string[] = [];
    const logger = {
      info: () => {},
      debug: () => {},
      error: () => {},
      warn: (m: string) => warnings.push(m),
      group: <T>(_: string, fn: () => Promise<T>) => fn(),
    };
    const store = {
      description: 'a silent cache',
      restore: () => new Promise<string | undefined>(() => {}),
      save: () => new Promise<boolean>(() => {}),
    };
    const cache = new LayerCache(
      { store, dir: mkdtempSync(path.join(tmpdir(), 'spread-lc-')), restoreTimeoutMs: 50 },
      layerCacheKey([web]),
      () => {
        throw new Error('Docker is not needed when nothing was restored');
      },
      logger,
    );
    expect(await cache.restore()).toEqual([]);
    expect(warnings).toEqual([
      'layer cache: could not restore from a silent cache: restoring from a silent cache did not finish within 0.05 s',
    ]);
  });
});
