import { describe, expect, test } from 'vitest';
import { actionText } from '../../../src/action/logger.js';
import { optionRef, phraseOptionsIn } from '../../../src/base/option-ref.js';
import { cliText } from '../../../src/cli/logger.js';
import { KubeApiError } from '../../../src/cluster/client.js';
import { explainApiError } from '../../../src/engine/apply/errors.js';

// The core names an option by key; each front end spells it its own way: the CLI a flag, the Action
// an input. Neither sees the other's spelling.
const conflict = new KubeApiError(
  409,
  'PATCH /api/v1/namespaces/a/configmaps/x',
  { kind: 'Status', reason: 'Conflict', message: 'Apply failed with 1 conflict', code: 409 },
  '',
);
const immutable = new KubeApiError(
  422,
  'PATCH /apis/apps/v1/namespaces/a/deployments/web',
  {
    kind: 'Status',
    reason: 'Invalid',
    message: 'Deployment.apps "web" is invalid: spec.selector: Invalid value: field is immutable',
    code: 422,
  },
  '',
);

describe('options named by each front end in its own spelling', () => {
  test.each([
    [explainApiError(conflict), '--force-conflicts', 'the input force-conflicts: true'],
    [explainApiError(immutable), '--replace', 'the input replace: true'],
    [`adopting takes it over: ${optionRef('adopt')}`, '--adopt', 'the input adopt: true'],
  ])('%s', (message, cli, action) => {
    expect(cliText(message)).toContain(cli);
    expect(cliText(message)).not.toContain('the input');
    expect(actionText(message)).toContain(action);
    expect(actionText(message)).not.toMatch(/--[a-z]/);
  });

  test('a report is spelled in every string it holds', () => {
    const report = { objects: [{ deferred: `immutable fields change (use ${optionRef('replace')})` }] };
    expect(phraseOptionsIn(report, (k) => `<${k}>`)).toEqual({
      objects: [{ deferred: 'immutable fields change (use <replace>)' }],
    });
  });
});
