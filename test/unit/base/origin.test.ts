import { describe, expect, test } from 'vitest';
import {
  defaultDeploymentName,
  formatOrigin,
  originAnnotations,
  originOfAnnotations,
  sameOrigin,
} from '../../../src/base/origin.js';

describe('defaultDeploymentName', () => {
  test.each([
    ['a distinctive folder keeps its name', { repository: 'github.com/acme/shop', path: 'web' }, 'web'],
    ['nested: the folder itself', { repository: 'github.com/acme/shop', path: 'services/Web_UI' }, 'web-ui'],
    [
      'a generic folder at the top: the repository',
      { repository: 'github.com/acme/shop', path: 'k8s' },
      'shop-k8s',
    ],
    [
      'generic under generic: the repository',
      { repository: 'github.com/acme/shop', path: 'deploy/k8s' },
      'shop-k8s',
    ],
    [
      'generic under a distinctive folder',
      { repository: 'github.com/acme/shop', path: 'services/web/k8s' },
      'web-k8s',
    ],
    ['the repository root', { repository: 'gitlab.com/group/sub/billing', path: '.' }, 'billing'],
    ['no repository: the absolute path', { path: '/home/me/shop/manifests' }, 'shop-manifests'],
    ['no repository, distinctive', { path: '/home/me/shop/web' }, 'web'],
  ])('%s', (_what, origin, name) => {
    expect(defaultDeploymentName(origin)).toBe(name);
  });

  test('the same generic folder of two repositories gives two names', () => {
    for (const folder of ['app', 'k8s', 'deploy', 'manifests', '.'])
      expect(defaultDeploymentName({ repository: 'github.com/acme/shop', path: folder })).not.toBe(
        defaultDeploymentName({ repository: 'github.com/acme/billing', path: folder }),
      );
  });
});

describe('origin annotations', () => {
  test('recorded and read back; a parent without them has no origin', () => {
    const origin = { repository: 'github.com/acme/shop', path: 'deploy/k8s' };
    expect(originOfAnnotations(originAnnotations(origin))).toEqual(origin);
    expect(originOfAnnotations(originAnnotations({ path: '/srv/k8s' }))).toEqual({ path: '/srv/k8s' });
    expect(originOfAnnotations({})).toBeUndefined();
    expect(formatOrigin(origin)).toBe('github.com/acme/shop, path deploy/k8s');
    expect(sameOrigin(origin, { ...origin })).toBe(true);
    expect(sameOrigin(origin, { ...origin, repository: 'github.com/acme/billing' })).toBe(false);
    expect(sameOrigin(origin, { path: 'deploy/k8s' })).toBe(false);
  });
});
