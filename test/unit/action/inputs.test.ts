import { describe, expect, test } from 'vitest';
import { type Inputs, parseInputs } from '../../../src/action/inputs.js';

/** What the runner passes when a step gives no `with:` at all (action.yml's defaults, token aside). */
const DEFAULTS: Inputs = {
  path: '.',
  context: '',
  kubeconfig: '',
  namespace: '',
  name: '',
  kustomize: '',
  kustomizeEnableHelm: false,
  registry: '',
  tag: '',
  buildArgs: {},
  build: true,
  push: true,
  layerCache: 'auto',
  platforms: [],
  attestations: 'false',
  buildSecrets: [],
  builder: '',
  helm: '',
  helmValues: [],
  helmSet: {},
  prune: true,
  pruneCrds: false,
  includeKept: false,
  wait: true,
  timeoutMs: 300_000,
  mode: 'deploy',
  forceConflicts: false,
  replace: false,
  adopt: false,
  rollbackOnFailure: false,
  waitLoadBalancer: false,
  objectAnnotations: true,
  lockTimeoutMs: 300_000,
  lockLeaseDurationSeconds: 30,
  environments: [],
  from: '',
  fromKubeconfig: '',
  annotate: true,
  comment: true,
  githubToken: '',
  concurrency: 64,
  urlFrom: undefined,
  deployment: false,
  environment: '',
  cluster: '',
  reports: 'spread-reports/',
  wave: '',
  deployComment: false,
  failOnDrift: false,
  heal: false,
};

const parse = (map: Record<string, string>) => parseInputs((name) => map[name] ?? '');

describe('parseInputs', () => {
  test.each<[string, Record<string, string>, Partial<Inputs>]>([
    ['nothing given: the defaults', {}, {}],
    [
      'whitespace is trimmed',
      { path: '  deploy/web \n', namespace: ' team-a ' },
      { path: 'deploy/web', namespace: 'team-a' },
    ],
    ['mode plan', { mode: 'plan' }, { mode: 'plan' }],
    ['mode delete', { mode: 'delete' }, { mode: 'delete' }],
    [
      'booleans in YAML 1.2 spellings',
      { wait: 'False', prune: 'FALSE', 'force-conflicts': 'True' },
      { wait: false, prune: false, forceConflicts: true },
    ],
    ['durations', { timeout: '1m30s', 'lock-timeout': '45' }, { timeoutMs: 90_000, lockTimeoutMs: 45_000 }],
    ['lock-lease-duration', { 'lock-lease-duration': '2m' }, { lockLeaseDurationSeconds: 120 }],
    [
      'registry with a path, trailing slash dropped',
      { registry: 'ghcr.io/acme/' },
      { registry: 'ghcr.io/acme' },
    ],
    ['registry with a port', { registry: 'localhost:5000' }, { registry: 'localhost:5000' }],
    ['tag', { tag: 'v1.2.3_rc-1' }, { tag: 'v1.2.3_rc-1' }],
    [
      'build-args: lines, = in values, empty values, comments',
      { 'build-args': 'NODE_ENV=production\n# a comment\n\nFLAGS=a=b c\nEMPTY=' },
      { buildArgs: { NODE_ENV: 'production', FLAGS: 'a=b c', EMPTY: '' } },
    ],
    [
      'helm values files, comma- or line-separated; helm-set keys as Helm writes them',
      {
        'helm-values': 'values.yaml, values-prod.yaml\nextra.yaml',
        'helm-set': 'image.tag=v1\nhosts[0]=a,b',
      },
      {
        helmValues: ['values.yaml', 'values-prod.yaml', 'extra.yaml'],
        helmSet: { 'image.tag': 'v1', 'hosts[0]': 'a,b' },
      },
    ],
    ['CRDs pruned too', { 'prune-crds': 'true' }, { pruneCrds: true }],
    ['no build, no push', { build: 'false', push: 'false' }, { build: false, push: false }],
    ['no build: push defaults to false too', { build: 'false' }, { build: false, push: false }],
    ['no layer cache', { 'layer-cache': 'false' }, { layerCache: false }],
    [
      'platforms, comma- or line-separated',
      { platforms: 'linux/amd64, linux/arm64\nlinux/arm/v7' },
      { platforms: ['linux/amd64', 'linux/arm64', 'linux/arm/v7'] },
    ],
    ['attestations on', { attestations: 'true' }, { attestations: 'true' }],
    ['provenance only', { attestations: 'provenance' }, { attestations: 'provenance' }],
    [
      'build-secrets: id=value lines, = in a value',
      { 'build-secrets': 'npm=tok=en\ngit.token=x' },
      {
        buildSecrets: [
          { id: 'npm', value: 'tok=en' },
          { id: 'git.token', value: 'x' },
        ],
      },
    ],
    ['a builder', { builder: 'builder-1' }, { builder: 'builder-1' }],
    ['the layer cache also in a public repository', { 'layer-cache': 'true' }, { layerCache: true }],
    [
      'environments',
      { environments: 'main=production\n  release/*  =  staging \n# preview\n' },
      {
        environments: [
          { pattern: 'main', context: 'production' },
          { pattern: 'release/*', context: 'staging' },
        ],
      },
    ],
    [
      'kubeconfig is kept as given (not trimmed)',
      { kubeconfig: 'apiVersion: v1\n' },
      { kubeconfig: 'apiVersion: v1\n' },
    ],
    [
      'token and concurrency',
      { 'github-token': 'ghs_x', concurrency: '4' },
      { githubToken: 'ghs_x', concurrency: 4 },
    ],
    [
      'annotate and comment off',
      { annotate: 'false', comment: 'false' },
      { annotate: false, comment: false },
    ],
    [
      'replace and rollback',
      { replace: 'true', 'rollback-on-failure': 'true' },
      { replace: true, rollbackOnFailure: true },
    ],
    ['adopt', { adopt: 'true' }, { adopt: true }],
    [
      'a GitHub deployment to an environment, the URL from an Ingress',
      { deployment: 'true', environment: 'production', 'url-from': 'ingress/web' },
      { deployment: true, environment: 'production', urlFrom: { kind: 'ingress', name: 'web' } },
    ],
    [
      'url-from in kubectl short names',
      { 'url-from': 'svc/lb' },
      { urlFrom: { kind: 'service', name: 'lb' } },
    ],
  ])('%s', (_, map, expected) => {
    expect(parse(map)).toEqual({ ...DEFAULTS, ...expected });
  });

  test.each<[string, Record<string, string>, RegExp]>([
    [
      'unknown mode',
      { mode: 'apply' },
      /^input mode: expected deploy, plan, delete, drift, promote, fleet-plan, fleet-soak or fleet-report, got "apply"/,
    ],
    ['boolean', { wait: 'yes' }, /^input wait: expected true or false, got "yes"/],
    ['duration', { timeout: '5 minutes' }, /^input timeout: invalid duration/],
    ['lock-timeout', { 'lock-timeout': 'soon' }, /^input lock-timeout: invalid duration/],
    [
      'lock-lease-duration',
      { 'lock-lease-duration': '1500ms' },
      /^input lock-lease-duration: invalid Lease duration "1500ms": use whole seconds/,
    ],
    ['concurrency', { concurrency: '0' }, /^input concurrency: expected a whole number ≥ 1/],
    ['namespace', { namespace: 'Team_A' }, /^input namespace: "Team_A" is not a namespace name/],
    ['registry with a scheme', { registry: 'https://ghcr.io' }, /^input registry: expected a registry/],
    ['tag', { tag: '-bad' }, /^input tag: "-bad" is not a Docker tag/],
    ['build-args without =', { 'build-args': 'A=1\nOOPS' }, /^input build-args: line 2: expected KEY=VALUE/],
    ['build-args twice', { 'build-args': 'A=1\nA=2' }, /^input build-args: line 2: A is given twice/],
    ['helm-set without =', { 'helm-set': 'replicas' }, /^input helm-set: line 1: expected KEY=VALUE/],
    [
      'environments without =',
      { environments: 'main' },
      /^input environments: line 1: expected BRANCH=CONTEXT/,
    ],
    ['environments with an empty side', { environments: 'main=' }, /^input environments: line 1/],
    ['context and environments', { context: 'a', environments: 'main=b' }, /give one or the other/],
    ['push without build', { build: 'false', push: 'true' }, /^input push: nothing is built/],
    ['url-from of a kind without URL', { 'url-from': 'configmap/x' }, /^input url-from: expected KIND\/NAME/],
    ['url-from without a name', { 'url-from': 'ingress' }, /^input url-from: expected KIND\/NAME/],
    ['deployment not a boolean', { deployment: 'yes' }, /^input deployment: expected true or false/],
    [
      'layer-cache not auto or a boolean',
      { 'layer-cache': 'yes' },
      /^input layer-cache: expected auto, true or false/,
    ],
  ])('rejects %s', (_, map, message) => {
    expect(() => parse(map)).toThrow(message);
  });

  test.each([
    ['platforms', { platforms: 'linux/amd64,amd64' }, /^input platforms: "amd64" is not a platform/],
    [
      'build-secrets without =',
      { 'build-secrets': 'npm' },
      /^input build-secrets: line 1: expected id=VALUE/,
    ],
    [
      'attestations not a choice',
      { attestations: 'on' },
      /^input attestations: expected false, provenance or true/,
    ],
  ])('rejects %s too', (_, map, message) => {
    expect(() => parse(map)).toThrow(message);
  });

  test('a build secret value is never echoed in an error', () => {
    expect(() => parse({ 'build-secrets': 'npm=s3cr3t\nnpm=s3cr3t' })).toThrow(/^(?!.*s3cr3t)/s);
    expect(() => parse({ 'build-secrets': 'npm=s3cr3t\nnpm=s3cr3t' })).toThrow(/npm is given twice/);
  });

  test('a build-arg value is never echoed in an error', () => {
    expect(() => parse({ 'build-args': 'TOKEN=s3cr3t\nTOKEN=s3cr3t' })).toThrow(/^(?!.*s3cr3t)/s);
  });
});
