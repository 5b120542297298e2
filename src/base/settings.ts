/**
 * What each setting of spread is, declared once: key, value type, commands, default, the deploy option
 * it sets. The front ends' texts (description, CLI flag and help, GitLab input) are one entry per key in
 * src/frontend/setting-texts.ts: a new setting is a row here and its entry there (tsc asks for both).
 */

/** Where a setting applies: a CLI command, or the Action's and the GitLab component's mode of the same name. */
export type Command =
  | 'deploy'
  | 'plan'
  | 'delete'
  | 'render'
  | 'build'
  | 'status'
  | 'history'
  | 'rollback'
  | 'list'
  | 'drift'
  | 'promote';

/**
 * What a setting's value is, which decides how each front end parses it: `string` is trimmed,
 * `secret` taken as given; `boolean` is `true`/`false` (YAML 1.2 core) or a flag; `auto-boolean` also
 * `auto`; `choice` one of `choices`; `duration` (`90s`, `5m`, bare seconds) milliseconds; `count` a
 * whole number ≥ 1; `namespace`, `registry`, `tag` checked as Kubernetes and Docker name them;
 * `build-args` and `key-values` `KEY=VALUE` lines (the CLI: a repeatable flag); `paths` file paths,
 * comma- or line-separated (the CLI: a repeatable flag); `platforms` OCI platforms
 * (`linux/amd64`), comma- or line-separated; `build-secrets` `ID=VALUE` lines (the CLI: a repeatable
 * `id=ID,env=VARIABLE` flag); `build-cache` a BuildKit cache backend (`registry`, `registry=REF`,
 * `local=DIR`, `gha`); `url-from` `KIND/NAME`; `environments`
 * `BRANCH=CONTEXT` lines; `array` a GitLab array (the component's own).
 */
export type SettingType =
  | 'string'
  | 'secret'
  | 'boolean'
  | 'auto-boolean'
  | 'choice'
  | 'duration'
  | 'lease-duration'
  | 'count'
  | 'namespace'
  | 'registry'
  | 'tag'
  | 'build-args'
  | 'key-values'
  | 'paths'
  | 'platforms'
  | 'build-secrets'
  | 'build-cache'
  | 'url-from'
  | 'environments'
  | 'array';

/** One setting: its key, value type, where it applies and its default. */
export interface SettingRow {
  readonly key: string;
  readonly type: SettingType;
  readonly choices?: readonly string[];
  readonly modes: readonly Command[];
  /**
   * The default as text, as the Action's input would give it (`5m`, `64`, `true`): action.yml's and
   * the GitLab component's default, and the CLI's, parsed by each front end as a given value.
   * Absent: empty (none, or off for a boolean). A front end differs only where its entry says why.
   */
  readonly default?: string;
  /**
   * The field of the deploy's options (src/core/deploy/options.ts DeployOptions) that takes the parsed value
   * as it is: the Action's `Inputs` field and the CLI's mapping of its flags (`timeoutMs`). Absent: a
   * front end turns the value into options of its own (images, charts, the kubeconfig…).
   */
  readonly passedAs?: string;
}

/** The settings, in the order action.yml, the GitLab component and the CLI help list them. */
export const SETTING_ROWS = [
  { key: 'stage', type: 'string', modes: ['deploy', 'plan', 'delete', 'promote'], default: 'deploy' },
  {
    key: 'job-name',
    type: 'string',
    modes: ['deploy', 'plan', 'delete', 'promote'],
    default: 'spread-deploy',
  },
  { key: 'path', type: 'string', modes: ['deploy', 'plan', 'delete', 'promote'], default: '.' },
  {
    key: 'context',
    type: 'string',
    modes: ['deploy', 'plan', 'delete', 'status', 'history', 'rollback', 'list'],
  },
  { key: 'environments', type: 'environments', modes: ['deploy', 'plan'] },
  { key: 'from', type: 'string', modes: ['promote'] },
  { key: 'to', type: 'string', modes: ['promote'] },
  { key: 'from-kubeconfig', type: 'secret', modes: ['promote'] },
  {
    key: 'kubeconfig',
    type: 'secret',
    modes: ['deploy', 'plan', 'delete', 'status', 'history', 'rollback', 'list', 'promote'],
  },
  {
    key: 'namespace',
    type: 'namespace',
    modes: ['deploy', 'plan', 'delete', 'render', 'status', 'history', 'rollback', 'list'],
  },
  { key: 'name', type: 'string', modes: ['deploy', 'plan', 'delete', 'render', 'status', 'promote'] },
  { key: 'kustomize', type: 'string', modes: ['deploy', 'plan', 'render', 'build', 'status', 'promote'] },
  {
    key: 'kustomize-enable-helm',
    type: 'boolean',
    modes: ['deploy', 'plan', 'render', 'build', 'status', 'promote'],
    default: 'false',
  },
  {
    key: 'mode',
    type: 'choice',
    choices: ['deploy', 'plan', 'delete', 'drift', 'promote', 'fleet-plan', 'fleet-soak', 'fleet-report'],
    modes: ['deploy', 'plan', 'delete', 'drift', 'promote'],
    default: 'deploy',
  },
  { key: 'registry', type: 'registry', modes: ['deploy', 'plan', 'build', 'status'] },
  { key: 'tag', type: 'tag', modes: ['deploy', 'plan', 'build', 'status'] },
  { key: 'build-args', type: 'build-args', modes: ['deploy', 'plan', 'build', 'status'] },
  { key: 'build', type: 'boolean', modes: ['deploy'], default: 'true' },
  { key: 'push', type: 'boolean', modes: ['deploy', 'build'], default: 'true' },
  { key: 'layer-cache', type: 'auto-boolean', modes: ['deploy'], default: 'auto' },
  { key: 'cache', type: 'build-cache', modes: ['deploy', 'plan', 'build'] },
  { key: 'platforms', type: 'platforms', modes: ['deploy', 'plan', 'build', 'status'] },
  {
    key: 'attestations',
    type: 'choice',
    choices: ['false', 'provenance', 'true'],
    modes: ['deploy', 'plan', 'build', 'status'],
    default: 'false',
  },
  { key: 'build-secrets', type: 'build-secrets', modes: ['deploy', 'plan', 'build'] },
  { key: 'builder', type: 'string', modes: ['deploy', 'plan', 'build'] },
  { key: 'helm', type: 'string', modes: ['deploy', 'plan', 'render', 'build', 'status'] },
  { key: 'helm-values', type: 'paths', modes: ['deploy', 'plan', 'render', 'build', 'status'] },
  { key: 'helm-set', type: 'key-values', modes: ['deploy', 'plan', 'render', 'build', 'status'] },
  { key: 'prune', passedAs: 'prune', type: 'boolean', modes: ['deploy', 'plan', 'promote'], default: 'true' },
  {
    key: 'prune-crds',
    passedAs: 'pruneCrds',
    type: 'boolean',
    modes: ['deploy', 'plan', 'delete', 'promote'],
    default: 'false',
  },
  {
    key: 'include-kept',
    type: 'boolean',
    modes: ['delete'],
    default: 'false',
  },
  {
    key: 'wait',
    passedAs: 'wait',
    type: 'boolean',
    modes: ['deploy', 'rollback', 'promote'],
    default: 'true',
  },
  {
    key: 'timeout',
    passedAs: 'timeoutMs',
    type: 'duration',
    modes: ['deploy', 'rollback', 'promote'],
    default: '5m',
  },
  {
    key: 'force-conflicts',
    passedAs: 'forceConflicts',
    type: 'boolean',
    modes: ['deploy', 'plan', 'rollback', 'promote'],
    default: 'false',
  },
  { key: 'replace', passedAs: 'replace', type: 'boolean', modes: ['deploy', 'plan'], default: 'false' },
  {
    key: 'adopt',
    passedAs: 'adopt',
    type: 'boolean',
    modes: ['deploy', 'plan', 'promote'],
    default: 'false',
  },
  {
    key: 'rollback-on-failure',
    passedAs: 'rollbackOnFailure',
    type: 'boolean',
    modes: ['deploy', 'promote'],
    default: 'false',
  },
  {
    key: 'lock-timeout',
    passedAs: 'lockTimeoutMs',
    type: 'duration',
    modes: ['deploy', 'rollback', 'delete', 'promote'],
    default: '5m',
  },
  {
    key: 'lock-lease-duration',
    passedAs: 'lockLeaseDurationSeconds',
    type: 'lease-duration',
    modes: ['deploy', 'rollback', 'delete', 'promote'],
    default: '30s',
  },
  {
    key: 'concurrency',
    passedAs: 'concurrency',
    type: 'count',
    modes: ['deploy', 'plan', 'promote'],
    default: '64',
  },
  {
    key: 'wait-load-balancer',
    passedAs: 'waitLoadBalancer',
    type: 'boolean',
    modes: ['deploy', 'promote'],
    default: 'false',
  },
  { key: 'object-annotations', type: 'boolean', modes: ['deploy', 'plan', 'promote'], default: 'true' },
  { key: 'annotate', type: 'boolean', modes: ['deploy', 'plan', 'delete', 'promote'], default: 'true' },
  { key: 'comment', type: 'boolean', modes: ['plan'], default: 'true' },
  { key: 'url-from', type: 'url-from', modes: ['deploy', 'promote'] },
  { key: 'deployment', type: 'boolean', modes: ['deploy', 'delete', 'promote'], default: 'false' },
  {
    key: 'environment',
    type: 'string',
    modes: ['deploy', 'plan', 'delete', 'render', 'status', 'promote', 'history', 'rollback', 'list'],
  },
  { key: 'cluster', type: 'string', modes: ['deploy', 'plan'] },
  { key: 'component', type: 'string', modes: [], default: '$CI_SERVER_FQDN/redspread/spread/deploy@0.1.0' },
  { key: 'reports', type: 'string', modes: [], default: 'spread-reports/' },
  { key: 'wave', type: 'string', modes: [] },
  { key: 'deploy-comment', type: 'boolean', modes: ['deploy'], default: 'false' },
  { key: 'github-token', type: 'secret', modes: ['deploy', 'plan', 'delete', 'drift', 'promote'] },
  { key: 'fail-on-drift', type: 'boolean', modes: ['drift'], default: 'false' },
  { key: 'heal', type: 'boolean', modes: ['drift'], default: 'false' },
  { key: 'target', type: 'string', modes: ['deploy', 'plan', 'build', 'status'] },
  {
    key: 'output',
    type: 'choice',
    choices: ['text', 'json'],
    modes: ['deploy', 'plan', 'build', 'status', 'history', 'rollback', 'list', 'delete', 'promote'],
    default: 'text',
  },
  { key: 'allow-empty', passedAs: 'allowEmpty', type: 'boolean', modes: ['deploy', 'plan'] },
  { key: 'show-secrets', type: 'boolean', modes: ['render'] },
  { key: 'all-environments', type: 'boolean', modes: ['status'] },
  {
    key: 'against',
    type: 'choice',
    choices: ['directory', 'revision'],
    modes: ['status'],
    default: 'directory',
  },
  {
    key: 'verbose',
    type: 'boolean',
    modes: [
      'deploy',
      'plan',
      'render',
      'build',
      'status',
      'history',
      'rollback',
      'list',
      'delete',
      'promote',
    ],
  },
  { key: 'environment-url', type: 'string', modes: ['deploy', 'plan', 'delete', 'promote'] },
  {
    key: 'environment-action',
    type: 'choice',
    choices: ['start', 'prepare', 'verify', 'access', 'stop'],
    modes: ['deploy', 'plan', 'delete', 'promote'],
    default: 'start',
  },
  {
    key: 'resource-group',
    type: 'string',
    modes: ['deploy', 'plan', 'delete', 'promote'],
    default: 'spread-production',
  },
  {
    key: 'image',
    type: 'string',
    modes: ['deploy', 'plan', 'delete', 'promote'],
    default: 'ghcr.io/redspread/spread:0.1.0',
  },
  { key: 'package', type: 'string', modes: ['deploy', 'plan', 'delete', 'promote'] },
  { key: 'version', type: 'string', modes: ['deploy', 'plan', 'delete', 'promote'] },
  { key: 'mr-note', type: 'boolean', modes: ['plan'], default: 'true' },
  { key: 'services', type: 'array', modes: ['deploy', 'plan', 'delete', 'promote'] },
  { key: 'docker-host', type: 'string', modes: ['deploy', 'plan', 'build'] },
  { key: 'rules', type: 'array', modes: ['deploy', 'plan', 'delete', 'promote'] },
] as const satisfies readonly SettingRow[];

/** A setting's key: `force-conflicts`. */
export type SettingKey = (typeof SETTING_ROWS)[number]['key'];

/** The row of setting `K`, with its literal types (its `type`, `choices`, `default`). */
export type RowOf<K extends SettingKey> = Extract<(typeof SETTING_ROWS)[number], { readonly key: K }>;
