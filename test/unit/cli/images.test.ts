import { describe, expect, test } from 'vitest';
import { imageStageOptions } from '../../../src/cli/images.js';

const flags = { buildArg: {}, secret: [], attestations: 'false' } as const;
const env = { HOME: '/home/ci', SPREAD_REGISTRY: 'localhost:5000/team-a' };

describe('imageStageOptions', () => {
  test('without --tag: the commit is a second tag, not the deployed one (an unchanged context rolls nothing)', () => {
    const options = imageStageOptions(flags, '0123456789abcdef0123', env);
    expect(options.tag).toBeUndefined();
    expect(options.commit).toBe('0123456789ab');
    expect(options.registry).toBe('localhost:5000/team-a');
  });

  test('--tag is the deployed tag, and no commit tag is added', () => {
    const options = imageStageOptions({ ...flags, tag: 'v1.4.2' }, '0123456789abcdef0123', env);
    expect(options).toMatchObject({ tag: 'v1.4.2', commit: undefined });
  });
});
