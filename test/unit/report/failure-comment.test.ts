import { expect, test } from 'vitest';
import { planMarker, renderPlanFailureComment } from '../../../src/report/comment.js';

const target = { deployment: 'web', context: 'prod', namespace: 'shop' };

test('a failed plan replaces the plan comment (same marker) and lists each problem at its file and line', () => {
  const body = renderPlanFailureComment(
    target,
    'the plan failed for 1 object(s); nothing was written:\n  Deployment shop/web (deploy/web/deployment.yaml:11): …',
    [
      {
        message:
          'Deployment shop/web (deployment.yaml:11): .spec.template.spec.containers[name="web"].imagee: field not declared in schema',
        file: 'deploy/web/deployment.yaml',
        line: 11,
      },
      { message: 'interrupted by SIGTERM: 1 object(s) not finished' },
    ],
    { sha: '0123456789abcdef', runUrl: 'https://gh/run/1' },
  );
  expect(body.startsWith(`${planMarker(target)}\n`)).toBe(true);
  expect(body).toContain('### ❌ Plan failed: `web` → context `prod`, namespace `shop`');
  expect(body).toContain('the plan failed for 1 object(s); nothing was written:');
  expect(body).toContain(
    '- `deploy/web/deployment.yaml:11`: Deployment shop/web (deployment.yaml:11): .spec.template.spec.containers[name="web"].imagee: field not declared in schema',
  );
  expect(body).toContain('- interrupted by SIGTERM: 1 object(s) not finished');
  expect(body).toContain('<sub>spread · commit `0123456` · [run](https://gh/run/1)</sub>');
});

test('at most 50 problems are listed; the rest are counted', () => {
  const failures = Array.from({ length: 60 }, (_, i) => ({ message: `m${i}`, file: 'a.yaml', line: i + 1 }));
  const body = renderPlanFailureComment(target, 'failed', failures, { runUrl: 'https://gh/run/1' });
  expect(body).toContain('`a.yaml:50`: m49');
  expect(body).not.toContain('m50');
  expect(body).toContain('- … and 10 more problems ([run](https://gh/run/1))');
  expect(renderPlanFailureComment(target, 'failed', failures, { limit: 300 }).length).toBeLessThanOrEqual(
    300,
  );
});
