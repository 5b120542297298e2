// The place of an object (docs/phases.md): spread's phase and wave annotations, Helm's and Argo CD's
// hook annotations mapped to them, what is not run, and bad values, as one table.
import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../../src/base/kube-object.js';
import {
  helmHookSkipped,
  isHoisted,
  readPlace,
  recreateOf,
  stepOrderIssues,
} from '../../../src/deployment/phases.js';

const object = (annotations: Record<string, string>, kind = 'Job') => ({
  apiVersion: kind === 'Job' ? 'batch/v1' : 'v1',
  kind,
  metadata: { name: 'x', annotations },
});
const before = { beforeCreation: true, succeeded: false, failed: false };

describe('readPlace', () => {
  test.each([
    [{}, { place: { phase: 'main', wave: 0 } }],
    [{ 'spread.rsprd.com/phase': 'pre' }, { place: { phase: 'pre', wave: 0 } }],
    [
      { 'spread.rsprd.com/phase': 'post', 'spread.rsprd.com/wave': '-3' },
      { place: { phase: 'post', wave: -3 } },
    ],
    [{ 'argocd.argoproj.io/sync-wave': '5' }, { place: { phase: 'main', wave: 5 } }],
    [
      { 'spread.rsprd.com/wave': '1', 'argocd.argoproj.io/sync-wave': '5' },
      { place: { phase: 'main', wave: 1 } },
    ],
    // Helm reads a weight only on a hook.
    [{ 'helm.sh/hook-weight': '5' }, { place: { phase: 'main', wave: 0 } }],
    [
      { 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-weight': '-5' },
      { place: { phase: 'pre', wave: -5, hook: { from: 'helm.sh/hook', deletePolicy: before } } },
    ],
    [
      { 'helm.sh/hook': 'post-install', 'helm.sh/hook-delete-policy': 'hook-succeeded,hook-failed' },
      {
        place: {
          phase: 'post',
          wave: 0,
          hook: {
            from: 'helm.sh/hook',
            deletePolicy: { beforeCreation: false, succeeded: true, failed: true },
          },
        },
      },
    ],
    [
      { 'argocd.argoproj.io/hook': 'PostSync', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' },
      {
        place: {
          phase: 'post',
          wave: 0,
          hook: {
            from: 'argocd.argoproj.io/hook',
            deletePolicy: { beforeCreation: false, succeeded: true, failed: false },
          },
        },
      },
    ],
    [
      { 'argocd.argoproj.io/hook': 'Sync' },
      { place: { phase: 'main', wave: 0, hook: { from: 'argocd.argoproj.io/hook', deletePolicy: before } } },
    ],
    // spread's own annotation wins over a hook's.
    [
      { 'helm.sh/hook': 'post-upgrade', 'spread.rsprd.com/phase': 'pre' },
      { place: { phase: 'pre', wave: 0, hook: { from: 'helm.sh/hook', deletePolicy: before } } },
    ],
  ])('%j', (annotations, expected) => {
    expect(readPlace(object(annotations))).toEqual({ ...expected, errors: [], warnings: [] });
  });

  test.each([
    [{ 'helm.sh/hook': 'test' }, /a hook \(helm\.sh\/hook: test\) of an event spread does not run/],
    [{ 'helm.sh/hook': 'pre-delete,post-rollback' }, /does not run/],
    [{ 'argocd.argoproj.io/hook': 'SyncFail' }, /does not run/],
    [{ 'argocd.argoproj.io/hook': 'Skip' }, /annotated argocd\.argoproj\.io\/hook: Skip/],
    // Argo CD's hook annotation wins over Helm's (gitops-engine hook.Types): Skip is not applied.
    [
      { 'helm.sh/hook': 'pre-install', 'argocd.argoproj.io/hook': 'Skip' },
      /annotated argocd\.argoproj\.io\/hook: Skip/,
    ],
  ])('not run: %j', (annotations, why) => {
    expect(readPlace(object(annotations)).skip).toMatch(why);
  });

  // A misspelt event or type is named as unknown, with the likely one meant and the known ones.
  test.each([
    [
      { 'argocd.argoproj.io/hook': 'PreSnyc' },
      'annotation argocd.argoproj.io/hook: "PreSnyc" is not an Argo CD hook type (did you mean PreSync? known: PreSync, Sync, PostSync, SyncFail, PreDelete, PostDelete, Skip): Argo CD never runs it either',
    ],
    [
      { 'helm.sh/hook': 'pre-instal' },
      'annotation helm.sh/hook: "pre-instal" is not a Helm hook event (did you mean pre-install? known: pre-install, pre-upgrade, post-install, post-upgrade, pre-delete, post-delete, pre-rollback, post-rollback, test, test-success, test-failure): Helm skips it too',
    ],
    [
      { 'helm.sh/hook': 'launch, test' },
      /^annotation helm\.sh\/hook: "launch" is not a Helm hook event \(known: [^)]*\): Helm skips it too; a hook \(helm\.sh\/hook: launch, test\) of an event spread does not run/,
    ],
    [
      { 'helm.sh/hook': 'pre-instal,post-instal' },
      /^annotation helm\.sh\/hook: "pre-instal", "post-instal" are not Helm hook events \(did you mean pre-install for "pre-instal", post-install for "post-instal"\? known: /,
    ],
    // Not a prototype's key either.
    [{ 'helm.sh/hook': 'constructor' }, /^annotation helm\.sh\/hook: "constructor" is not a Helm hook event/],
  ])('unknown: %j', (annotations, why) => {
    const reading = readPlace(object(annotations));
    expect(reading.place).toBeUndefined();
    if (typeof why === 'string') expect(reading.skip).toBe(why);
    else expect(reading.skip).toMatch(why);
  });

  test('an unknown event beside a known one: a warning, and the hook runs', () => {
    expect(readPlace(object({ 'helm.sh/hook': 'pre-instal,pre-upgrade' }))).toEqual({
      place: { phase: 'pre', wave: 0, hook: { from: 'helm.sh/hook', deletePolicy: before } },
      errors: [],
      warnings: [
        'annotation helm.sh/hook: "pre-instal" is not a Helm hook event (did you mean pre-install? known: pre-install, pre-upgrade, post-install, post-upgrade, pre-delete, post-delete, pre-rollback, post-rollback, test, test-success, test-failure), ignored; the hook runs as pre',
      ],
    });
    // Argo CD's annotation with no type it knows gives way to Helm's, with a warning (case matters).
    expect(
      readPlace(object({ 'argocd.argoproj.io/hook': 'presync', 'helm.sh/hook': 'post-install' })).warnings,
    ).toEqual([
      'annotation argocd.argoproj.io/hook: "presync" is not an Argo CD hook type (did you mean PreSync? known: PreSync, Sync, PostSync, SyncFail, PreDelete, PostDelete, Skip); helm.sh/hook is read instead',
    ]);
  });

  test.each([
    [
      { 'spread.rsprd.com/phase': 'during' },
      ['annotation spread.rsprd.com/phase: "during" is not a phase; use pre, main or post'],
    ],
    [
      { 'spread.rsprd.com/wave': 'first', 'spread.rsprd.com/phase': 'later' },
      [
        'annotation spread.rsprd.com/phase: "later" is not a phase; use pre, main or post',
        'annotation spread.rsprd.com/wave: "first" is not an integer (a wave is a whole number, e.g. "-1", "0", "5")',
      ],
    ],
  ])('errors, all at once: %j', (annotations, errors) => {
    expect(readPlace(object(annotations)).errors).toEqual(errors);
  });

  test('warnings: an event not run beside one that is, two phases, an unknown policy', () => {
    expect(
      readPlace(
        object({ 'helm.sh/hook': 'pre-install,post-upgrade,test', 'helm.sh/hook-delete-policy': 'never' }),
      ).warnings,
    ).toEqual([
      'annotation helm.sh/hook: test not run by spread; the hook runs as pre, post',
      'annotation helm.sh/hook: pre-install,post-upgrade,test names more than one phase; spread runs the hook once, in pre',
      'annotation helm.sh/hook-delete-policy: unknown policy "never" ignored (known: before-hook-creation, hook-succeeded, hook-failed)',
    ]);
  });
});

describe('Helm and Argo CD as they read their own annotations', () => {
  test("a Helm hook-weight that is not an integer is wave 0 with a warning, as Helm reads it; spread's own stays an error", () => {
    expect(readPlace(object({ 'helm.sh/hook': 'pre-install', 'helm.sh/hook-weight': 'abc' }))).toEqual({
      place: { phase: 'pre', wave: 0, hook: { from: 'helm.sh/hook', deletePolicy: before } },
      errors: [],
      warnings: ['annotation helm.sh/hook-weight: "abc" is not an integer; wave 0, as Helm reads it'],
    });
    expect(readPlace(object({ 'spread.rsprd.com/wave': 'abc' })).errors).toEqual([
      expect.stringMatching(/spread\.rsprd\.com\/wave: "abc" is not an integer/),
    ]);
  });

  // gitops-engine syncwaves Wave: strconv.Atoi of the value as written (no trimming); when it
  // fails, the wave is the Helm hook weight, else 0.
  test.each([
    [' 1', { phase: 'main', wave: 0 }],
    ['1e3', { phase: 'main', wave: 0 }],
    ['+2', { phase: 'main', wave: 2 }],
  ])(
    'an Argo CD sync-wave %j is read with strconv.Atoi: not an integer is wave 0 with a warning',
    (wave, place) => {
      const got = readPlace(object({ 'argocd.argoproj.io/sync-wave': wave }));
      expect(got.place).toEqual(place);
      expect(got.errors).toEqual([]);
      expect(got.warnings).toEqual(
        place.wave === 0
          ? [
              `annotation argocd.argoproj.io/sync-wave: "${wave}" is not an integer; ignored as Argo CD ignores it (wave 0, or a Helm hook's weight)`,
            ]
          : [],
      );
    },
  );

  test("an Argo CD sync-wave that is not an integer falls back to the Helm hook's weight, as Argo CD does", () => {
    const got = readPlace(
      object({
        'helm.sh/hook': 'post-install',
        'helm.sh/hook-weight': '3',
        'argocd.argoproj.io/sync-wave': 'x',
      }),
    );
    expect(got.place).toEqual({
      phase: 'post',
      wave: 3,
      hook: { from: 'helm.sh/hook', deletePolicy: before },
    });
    expect(got.errors).toEqual([]);
  });

  // Helm's releaseutil sorts hooks by strings.ToLower(strings.TrimSpace(type)) for each type.
  test.each([
    ['Pre-Install', 'pre'],
    [' pre-upgrade ', 'pre'],
    ['POST-INSTALL, Post-Upgrade', 'post'],
  ])('a Helm hook %j is read in any case, trimmed, as Helm reads it: phase %s', (hook, phase) => {
    expect(readPlace(object({ 'helm.sh/hook': hook }))).toEqual({
      place: { phase, wave: 0, hook: { from: 'helm.sh/hook', deletePolicy: before } },
      errors: [],
      warnings: [],
    });
  });

  // Helm's releaseutil reads each delete policy as each hook type: lowercased and trimmed.
  test.each([
    ['Hook-Succeeded', { beforeCreation: false, succeeded: true, failed: false }],
    [' hook-succeeded , HOOK-FAILED ', { beforeCreation: false, succeeded: true, failed: true }],
    ['Before-Hook-Creation', before],
  ])('a Helm hook-delete-policy %j is read in any case, trimmed, as Helm reads it', (value, deletePolicy) => {
    expect(
      readPlace(object({ 'helm.sh/hook': 'post-install', 'helm.sh/hook-delete-policy': value })),
    ).toEqual({
      place: { phase: 'post', wave: 0, hook: { from: 'helm.sh/hook', deletePolicy } },
      errors: [],
      warnings: [],
    });
  });

  test("Argo CD's hook-delete-policy stays case-sensitive, as Argo CD reads it", () => {
    const got = readPlace(
      object({
        'argocd.argoproj.io/hook': 'PostSync',
        'argocd.argoproj.io/hook-delete-policy': 'hooksucceeded',
      }),
    );
    expect(got.place?.hook?.deletePolicy).toEqual({ beforeCreation: false, succeeded: false, failed: false });
    expect(got.warnings).toEqual([
      'annotation argocd.argoproj.io/hook-delete-policy: unknown policy "hooksucceeded" ignored (known: BeforeHookCreation, HookSucceeded, HookFailed)',
    ]);
  });

  test.each([
    ['Pre-Install', 'install', undefined],
    ['Pre-Install', 'upgrade', 'a Helm hook of pre-install only, and this deploy is an upgrade: not run'],
    [' PRE-UPGRADE ', 'upgrade', undefined],
    [
      ' PRE-UPGRADE ',
      'install',
      'a Helm hook of pre-upgrade only, and this deploy is the first (an install): not run',
    ],
  ] as const)('helmHookSkipped(%j, %s), the hook read as Helm reads it', (hook, event, why) => {
    expect(helmHookSkipped(object({ 'helm.sh/hook': hook }), event)).toBe(why);
  });

  test("Argo CD's hook annotation wins over Helm's; Skip beside another type is ignored, as Argo CD does", () => {
    const argo = { from: 'argocd.argoproj.io/hook', deletePolicy: before };
    expect(
      readPlace(object({ 'helm.sh/hook': 'pre-install', 'argocd.argoproj.io/hook': 'PostSync' })).place,
    ).toEqual({ phase: 'post', wave: 0, hook: argo });
    // gitops-engine hook.Skip: true only when Skip is the one type.
    const both = readPlace(object({ 'argocd.argoproj.io/hook': 'PreSync,Skip' }));
    expect(both.place).toEqual({ phase: 'pre', wave: 0, hook: argo });
    expect(both.warnings).toEqual([
      'annotation argocd.argoproj.io/hook: Skip not run by spread; the hook runs as pre (Argo CD ignores Skip beside another hook type)',
    ]);
    // An Argo CD value naming no type it knows: Helm's hook is read, as Argo CD reads it.
    expect(
      readPlace(object({ 'helm.sh/hook': 'pre-install', 'argocd.argoproj.io/hook': 'Later' })).place?.phase,
    ).toBe('pre');
  });
});

describe('recreateOf', () => {
  test.each([
    [{}, 'Job', undefined],
    [{ 'spread.rsprd.com/phase': 'pre' }, 'Job', 'immutable'],
    [{ 'spread.rsprd.com/phase': 'pre' }, 'ConfigMap', undefined],
    [{ 'helm.sh/hook': 'pre-upgrade' }, 'ConfigMap', 'always'],
    [{ 'helm.sh/hook': 'pre-upgrade', 'helm.sh/hook-delete-policy': 'hook-succeeded' }, 'Job', 'immutable'],
  ])('%j %s → %s', (annotations, kind, expected) => {
    expect(recreateOf(object(annotations, kind))).toBe(expected);
  });
});

describe('Namespaces and CRDs against the steps', () => {
  const at = (file: string, o: KubeObject) => ({ object: o, source: { file, line: 1 } });
  const ns = (annotations: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'jobs', annotations },
  });
  const crd = (annotations: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', annotations },
    spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' } },
  });
  const placed = (kind: string, apiVersion: string, phase: string, namespace = 'jobs'): KubeObject => ({
    apiVersion,
    kind,
    metadata: { name: 'a', namespace, annotations: { 'spread.rsprd.com/phase': phase } },
  });

  test.each([
    [ns(), true],
    [crd(), true],
    [ns({ 'spread.rsprd.com/phase': 'main' }), false],
    [crd({ 'argocd.argoproj.io/sync-wave': '2' }), false],
    [placed('ConfigMap', 'v1', 'pre'), false],
  ])('isHoisted %#', (o, hoisted) => {
    expect(isHoisted(o)).toBe(hoisted);
  });

  test('an unplaced Namespace or CRD needs no order: no issue', () => {
    expect(
      stepOrderIssues([
        at('ns.yaml', ns()),
        at('crd.yaml', crd()),
        at('job.yaml', placed('Job', 'batch/v1', 'pre')),
        at('w.yaml', placed('Widget', 'example.com/v1', 'pre')),
      ]),
    ).toEqual([]);
  });

  test('a Namespace or CRD placed after an object that needs it: one error each, naming both and their files', () => {
    const issues = stepOrderIssues([
      at('ns.yaml', ns({ 'spread.rsprd.com/phase': 'post' })),
      at('crd.yaml', crd({ 'spread.rsprd.com/wave': '1' })),
      at('job.yaml', placed('Job', 'batch/v1', 'pre')),
      at('w.yaml', placed('Widget', 'example.com/v1', 'main', 'default')),
      // Placed with or after them: fine.
      at('late.yaml', placed('ConfigMap', 'v1', 'post')),
    ]);
    expect(issues.map((i) => `${i.source.file} ${i.object}: ${i.message}`)).toEqual([
      expect.stringMatching(
        /^job\.yaml Job a: placed in pre, it is in Namespace jobs, which is placed later, in post \(ns\.yaml:1\): its write would fail; place Namespace jobs no later than pre/,
      ),
      expect.stringMatching(
        /^w\.yaml Widget a: placed in main, it is a custom resource of CustomResourceDefinition widgets\.example\.com, which is placed later, in main wave 1 \(crd\.yaml:1\)/,
      ),
    ]);
  });
});
