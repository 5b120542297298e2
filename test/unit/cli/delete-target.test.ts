// `spread delete ./k8s`: a path names the deployment `spread deploy` of that folder makes, from CI's
// variables alone (a GitLab stop job runs without the checkout), as deploy names it.
import { describe, expect, test } from 'vitest';
import { defaultDeploymentName } from '../../../src/base/origin.js';
import { deleteTarget } from '../../../src/cli/manage.js';
import { deploymentOrigin } from '../../../src/frontend/origin.js';

const gitlab = {
  CI_SERVER_HOST: 'gitlab.example.com',
  CI_PROJECT_PATH: 'grp/proj',
  CI_PROJECT_DIR: '/builds/grp/proj',
};

describe('deleteTarget', () => {
  test('a name without a slash is the name', () => {
    expect(deleteTarget('k8s', gitlab)).toBe('k8s');
  });

  test.each([
    ['./k8s', 'proj-k8s'],
    ['./deploy/k8s', 'proj-k8s'],
    ['./services/web/k8s', 'web-k8s'],
    ['./web', 'web'],
    ['./.', 'proj'],
  ])('in GitLab CI, %s names %s, as deploy names that folder', (arg, name) => {
    // The folder need not exist: the stop job may run without the checkout.
    const dir = `/builds/grp/proj/${arg.slice(2)}`;
    expect(deleteTarget(dir, gitlab)).toBe(name);
    expect(defaultDeploymentName(deploymentOrigin(gitlab, dir))).toBe(name);
  });

  test('. and .. are folders, as deploy reads them (no deployment name can be either)', () => {
    expect(deleteTarget('.', gitlab)).toBe(defaultDeploymentName(deploymentOrigin(gitlab, '.')));
    expect(deleteTarget('.', gitlab)).not.toBe('.');
    expect(deleteTarget('..', gitlab)).toBe(defaultDeploymentName(deploymentOrigin(gitlab, '..')));
  });
});
