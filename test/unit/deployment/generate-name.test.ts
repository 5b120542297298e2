import { describe, expect, test } from 'vitest';
import { identityProblem, isGenerated, type KubeObject, nameOf } from '../../../src/base/kube-object.js';
import { SPREAD } from '../../../src/base/labels.js';
import { InputError, IssueList } from '../../../src/base/source.js';
import { decodeText } from '../../../src/decode/decode.js';
import { Deployment } from '../../../src/deployment/deployment.js';
import { applySetFor, generateNameLabel, labelForApplySet } from '../../../src/engine/inventory/applyset.js';
import { newEntity } from '../../../src/entity/index.js';

const job = (metadata: KubeObject['metadata']): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata,
});

describe('objects the server names (generateName)', () => {
  test.each([
    [{ generateName: 'smoke-' }, true, 'smoke-*'],
    [{ name: 'smoke', generateName: 'smoke-' }, false, 'smoke'],
    [{ name: 'smoke' }, false, 'smoke'],
    [{ generateName: '' }, false, ''],
  ])('%j: generated %s, shown as %j', (metadata, generated, shown) => {
    expect(isGenerated(job(metadata))).toBe(generated);
    expect(nameOf(job(metadata))).toBe(shown);
  });

  test('are valid objects; neither name nor generateName is not', () => {
    expect(identityProblem(job({ generateName: 'smoke-' }))).toBeUndefined();
    expect(identityProblem(job({}))).toBe('Job object has no metadata.name (or metadata.generateName)');
  });

  test('get the generate-name label: the prefix without its trailing separators, at most 63 characters', () => {
    expect(generateNameLabel('smoke-')).toBe('smoke');
    expect(generateNameLabel('db.migrate._')).toBe('db.migrate');
    expect(generateNameLabel(`${'a'.repeat(70)}-`)).toBe('a'.repeat(63));
    const set = applySetFor('app', 'prod');
    const labelled = labelForApplySet(
      { object: job({ generateName: 'smoke-' }), source: { file: 'j.yaml', line: 1 } },
      set,
    );
    expect(labelled.metadata.labels?.[SPREAD.generateName]).toBe('smoke');
    const named = labelForApplySet(
      { object: job({ name: 'smoke' }), source: { file: 'j.yaml', line: 1 } },
      set,
    );
    expect(named.metadata.labels?.[SPREAD.generateName]).toBeUndefined();
  });

  test('one per prefix, kind and namespace in a set: the same prefix twice is an object defined twice', () => {
    const d = Deployment.fromObjects(
      [
        { object: job({ generateName: 'smoke-' }), source: { file: 'a.yaml', line: 1 } },
        { object: job({ generateName: 'load-' }), source: { file: 'b.yaml', line: 1 } },
      ],
      { namespace: 'n' },
    );
    expect(d.objects().map((o) => `${nameOf(o.object)} ${o.object.metadata.namespace}`)).toEqual([
      'load-* n',
      'smoke-* n',
    ]);
    expect(() =>
      Deployment.fromObjects(
        [
          { object: job({ generateName: 'smoke-' }), source: { file: 'a.yaml', line: 1 } },
          { object: job({ generateName: 'smoke-' }), source: { file: 'b.yaml', line: 3 } },
        ],
        { namespace: 'n' },
      ),
    ).toThrow(InputError);
  });

  test('a controller file (job.yaml) with generateName keeps it, instead of the directory name', () => {
    const value = decodeText(
      'job.yaml',
      'metadata:\n  generateName: smoke-\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n',
    ).values[0]!;
    const issues = new IssueList();
    const controller = newEntity('Job', value, { dir: '.', defaultName: 'site' }, issues)!;
    expect(issues.issues).toEqual([]);
    expect(controller.name).toBe('smoke-*');
    expect(controller.toObject().metadata).toEqual({ generateName: 'smoke-' });
  });
});
