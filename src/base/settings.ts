/**
 * Every setting of spread, declared once: the CLI's flags (src/cli/options.ts builds the commander
 * options from it), the Action's inputs (src/action/inputs.ts parses them from it) and the GitLab
 * component's inputs. action.yml's and templates/deploy.yml's inputs are generated from it and checked
 * against it with the CLI help and the README (scripts/settings.mjs, in `npm run lint`), and messages
 * of the core name a setting through its key (src/base/option-ref.ts), which each front end spells its
 * own way. A new setting is one more row here; `npm run readme` rewrites the files generated from it.
 */

/**
 * The revision `spread rollback` goes to without a number: the one `rollback-on-failure` goes to, in
 * the same words (the command's help and the README's command list say it so; a unit test checks both).
 */
export const ROLLBACK_DEFAULT_REVISION = 'the last revision before the current whose rollout succeeded';

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
  | 'list';

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

/** A setting's CLI flag. */
export interface CliFlag {
  /** Commander's flags: `--adopt`, `--no-prune` (default on), `-n, --namespace <namespace>`. */
  readonly flags: string;
  /** The help text (default: the setting's description), and where a command says it differently, that command's. */
  readonly help?: string;
  readonly helpIn?: Partial<Record<Command, string>>;
  /** The default as the Action would be given it (`5m`, `16`); else the Action's default, if not empty. */
  readonly default?: string;
  readonly defaultIn?: Partial<Record<Command, string>>;
  /** The commands that take the flag, when not every one of the setting's modes does. */
  readonly commands?: readonly Command[];
}

/** A setting's Action input (action.yml), named by the setting's key. */
export interface ActionInput {
  /** action.yml's default (a string); one holding `${{ … }}` is the runner's to evaluate. */
  readonly default: string;
  /** The field of the parsed `Inputs` when not the camel-cased key (`timeoutMs`). */
  readonly field?: string;
}

/** A setting's GitLab component input (templates/deploy.yml's spec:inputs), named by the setting's key. */
export interface GitLabInput {
  readonly type: 'string' | 'boolean' | 'array';
  readonly default: string | boolean | readonly unknown[];
  readonly options?: readonly string[];
  /** Where the component says it differently from the setting's description. */
  readonly description?: string;
  /** The job variable the script reads it from (`SPREAD_INPUT_PRUNE`), which passes the CLI flag on. */
  readonly variable?: string;
  /** Interpolated in the job's own keywords (stage, image, rules…) instead of a variable. */
  readonly job?: true;
  /** Passed to the CLI as an argument (path, context, the command), not as its flag. */
  readonly argument?: true;
}

/** One setting: its key (kebab-case, as inputs are named), value type, where it applies, and each front end's. */
export interface Setting {
  readonly key: string;
  readonly type: SettingType;
  readonly choices?: readonly string[];
  readonly modes: readonly Command[];
  /** What it does, as action.yml documents it (with an example), or the front end's own text. */
  readonly description: string;
  readonly action?: ActionInput;
  readonly cli?: CliFlag;
  readonly gitlab?: GitLabInput;
}

/**
 * The settings, in the order action.yml, the GitLab component and the CLI help list them. This file is
 * over 400 lines because it is this table: one row per setting, with each front end's texts.
 */
export const SETTINGS = [
  {
    key: 'stage',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description: 'The stage the job runs in.',
    gitlab: { type: 'string', default: 'deploy', description: 'The stage the job runs in.', job: true },
  },
  {
    key: 'job-name',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description: "The job's name; include the component twice with different names to deploy twice.",
    gitlab: {
      type: 'string',
      default: 'spread-deploy',
      description: "The job's name; include the component twice with different names to deploy twice.",
      job: true,
    },
  },
  {
    key: 'path',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description: 'Directory in spread layout to deploy, relative to the workspace. Example: `deploy/web`.',
    action: { default: '.' },
    gitlab: {
      type: 'string',
      default: '.',
      description: 'Directory in spread layout, relative to the project. Example `deploy/web`.',
      variable: 'SPREAD_INPUT_PATH',
      argument: true,
    },
  },
  {
    key: 'context',
    type: 'string',
    modes: ['deploy', 'plan', 'delete', 'status', 'history', 'rollback', 'list'],
    description:
      "kubeconfig context to deploy to. Empty: the kubeconfig's current context. A context that does not exist fails the step and lists those that do. Not together with `environments`. Example: `production`.",
    action: { default: '' },
    cli: {
      flags: '--context <context>',
      help: "kubeconfig context, as the CONTEXT argument (kubectl's flag)",
      helpIn: { status: 'compare with the cluster of this kubeconfig context (nothing is written)' },
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "kubeconfig context; a GitLab agent's is `<agent project path>:<agent name>`. Empty: the kubeconfig's current context.",
      variable: 'SPREAD_INPUT_CONTEXT',
      argument: true,
    },
  },
  {
    key: 'environments',
    type: 'environments',
    modes: ['deploy', 'plan'],
    description:
      'Which context each branch deploys to, one `BRANCH=CONTEXT` line each, first match wins. BRANCH is a glob: `*` matches within one path segment, `**` across `/`, `?` one character. A branch no line matches is not deployed: the step ends with a notice and `skipped` is `true`. The branch is the pushed branch or tag (GITHUB_REF_NAME); on `pull_request` events it is the base branch in mode `plan` (the plan previews the merge) and the head branch in mode `deploy` (preview environments). Not together with `context`. Example: `main=production` and `release/*=staging` on two lines.',
    action: { default: '' },
  },
  {
    key: 'kubeconfig',
    type: 'secret',
    modes: ['deploy', 'plan', 'delete', 'status', 'history', 'rollback', 'list'],
    description:
      "The kubeconfig's content (plain YAML or base64), from a secret. It and each token, key and password in it are masked in the log. It stays in memory, except when a user authenticates with an `exec` or `auth-provider` plugin: then it is written to a 0600 file in RUNNER_TEMP for the plugin and removed when the step ends, even when it fails. Empty: `$KUBECONFIG`, then `~/.kube/config` (e.g. from azure/k8s-set-context or aws eks update-kubeconfig). Example: the secret KUBECONFIG (`secrets.KUBECONFIG` in an expression).",
    action: { default: '' },
    cli: {
      flags: '--kubeconfig <file>',
      help: 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)',
      helpIn: { status: 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config); implies a comparison' },
    },
  },
  {
    key: 'namespace',
    type: 'namespace',
    modes: ['deploy', 'plan', 'delete', 'render', 'status', 'history', 'rollback', 'list'],
    description:
      "Namespace for namespaced objects that name none. Empty: the context's namespace, then `default`. Given, an object naming another namespace fails the step (as `kubectl -n`). Example: `team-a`.",
    action: { default: '' },
    cli: {
      flags: '-n, --namespace <namespace>',
      help: "namespace for objects that name none (default: the context's namespace)",
      helpIn: {
        render: 'namespace for objects that name none',
        status: "namespace for objects that name none (default: the context's namespace, else default)",
        history: "the deployment's namespace (default: the context's namespace)",
        rollback: "the deployment's namespace (default: the context's namespace)",
        delete: "the deployment's namespace (default: the context's namespace)",
        list: 'only this namespace (default: all namespaces)',
      },
      defaultIn: { render: 'default' },
    },
    gitlab: {
      type: 'string',
      default: '',
      description: "Namespace for objects that name none. Empty, the context's, then `default`.",
      variable: 'SPREAD_INPUT_NAMESPACE',
    },
  },
  {
    key: 'name',
    type: 'string',
    modes: ['deploy', 'plan', 'delete', 'render', 'status'],
    description:
      "The deployment's name, which tracks its objects (the ApplySet) for prune. Empty: the directory's name; a common one (`k8s`, `deploy`, `app`, `manifests`…) gets the repository's name, or the folder above's, before it (`shop-k8s`), unless the folder was deployed under its own name before. Example: `web`.",
    action: { default: '' },
    cli: {
      flags: '--name <name>',
      help: "the deployment's name (default: the directory's name; a common one such as k8s gets the repository's name before it, e.g. shop-k8s)",
      // `spread delete NAME` names the deployment by its argument.
      commands: ['deploy', 'plan', 'render', 'status'],
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "The deployment's name, which tracks its objects for prune. Empty, the directory's name (a common one such as k8s gets the project's name before it: shop-k8s).",
      variable: 'SPREAD_INPUT_NAME',
    },
  },
  {
    key: 'kustomize',
    type: 'string',
    modes: ['deploy', 'plan', 'render', 'build', 'status'],
    description:
      'The kustomize binary that renders folders holding `kustomization.yaml` (`kustomize build`); a `kubectl` binary renders with `kubectl kustomize`. Empty: `kustomize` on PATH, else `kubectl kustomize`. Example: `/usr/local/bin/kustomize`.',
    action: { default: '' },
    cli: {
      flags: '--kustomize <binary>',
      help: 'kustomize binary that renders kustomizations (default: kustomize on PATH, else kubectl kustomize)',
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "The kustomize binary that renders kustomizations. Empty, the `kustomize` of spread's image.",
      variable: 'SPREAD_INPUT_KUSTOMIZE',
    },
  },
  {
    key: 'kustomize-enable-helm',
    type: 'boolean',
    modes: ['deploy', 'plan', 'render', 'build', 'status'],
    description:
      "Let kustomizations inflate the charts their `helmCharts` list (kustomize's `--enable-helm`), with `helm` on PATH (`true`/`false`). Example: `true`.",
    action: { default: 'false' },
    cli: {
      flags: '--kustomize-enable-helm',
      help: "inflate kustomizations' helmCharts with Helm (kustomize --enable-helm)",
    },
    gitlab: { type: 'boolean', default: false, variable: 'SPREAD_INPUT_KUSTOMIZE_ENABLE_HELM' },
  },
  {
    key: 'mode',
    type: 'choice',
    choices: ['deploy', 'plan', 'delete'],
    modes: ['deploy', 'plan', 'delete'],
    description:
      '`deploy` builds, applies, prunes and waits; `plan` checks every object with a server-side dry run, writes nothing, and on a pull request posts the plan as one comment per deployment (updated on later pushes); `delete` removes every object of the deployment. Example: `plan`.',
    action: { default: 'deploy' },
    gitlab: {
      type: 'string',
      default: 'deploy',
      options: ['deploy', 'plan', 'delete'],
      description:
        "`deploy` applies, prunes and waits; `plan` is a server-side dry run that writes nothing; `delete` removes every object of the deployment (named by `name`, else the name deploy gives `path`), as an environment's `on_stop` job (with `environment-action: stop`).",
      variable: 'SPREAD_INPUT_MODE',
      argument: true,
    },
  },
  {
    key: 'registry',
    type: 'registry',
    modes: ['deploy', 'plan', 'build', 'status'],
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template.
      'Registry that images marked `&` in the directory are tagged for and pushed to, as `host[:port][/path]`. Log in before this step (docker/login-action): credentials come from the Docker config. Lower case, as every image repository: `github.repository_owner` keeps the owner\'s capitals, so lower-case it in a step first (`echo "name=${GITHUB_REPOSITORY_OWNER,,}" >> "$GITHUB_OUTPUT"`). Example: `ghcr.io/acme`.',
    action: { default: '' },
    cli: {
      flags: '--registry <registry>',
      help: 'where & images are pushed, e.g. localhost:5000/team-a (default: $SPREAD_REGISTRY)',
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        'Registry (host[:port][/path]) that images marked `&` are tagged for and pushed to, e.g. `$CI_REGISTRY_IMAGE`. Empty, none.',
      variable: 'SPREAD_INPUT_REGISTRY',
    },
  },
  {
    key: 'tag',
    type: 'tag',
    modes: ['deploy', 'plan', 'build', 'status'],
    description:
      'Tag of the images built, and the one they are deployed with (pinned by digest whatever the tag). Empty: a tag of the build context, `ctx-` and 12 hex digits of its digest, with the commit (GITHUB_SHA, 12 characters) as a second tag; a commit that changes nothing in a build context then rolls no pod. Example: `v1.4.2`.',
    action: { default: '' },
    cli: {
      flags: '--tag <tag>',
      help: 'tag of built images, deployed with it (default: ctx-<digest of the build context>, and the commit as a second tag)',
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        'Tag of the images marked `&` that are built, and deployed with. Empty, a tag of the build context (`ctx-…`) and the commit (its first 12 characters) as a second tag, so an unchanged context rolls nothing.',
      variable: 'SPREAD_INPUT_TAG',
    },
  },
  {
    key: 'build-args',
    type: 'build-args',
    modes: ['deploy', 'plan', 'build', 'status'],
    description:
      'Docker build arguments for every image built, one `KEY=VALUE` line each. Example: `NODE_ENV=production`.',
    action: { default: '' },
    cli: { flags: '--build-arg <KEY=VALUE>', help: 'build argument, repeatable' },
    gitlab: {
      type: 'string',
      default: '',
      description:
        'Build arguments of the images marked `&`, one `KEY=VALUE` a line (the log shows their keys only). Empty, none.',
      variable: 'SPREAD_INPUT_BUILD_ARGS',
    },
  },
  {
    key: 'build',
    type: 'boolean',
    modes: ['deploy'],
    description:
      'Build the images marked `&` (`true`/`false`). `false` expects them to exist in the registry with the tag already. Example: `false`.',
    action: { default: 'true' },
    cli: { flags: '--no-build', help: 'do not build & images; pin what the registry holds' },
  },
  {
    key: 'push',
    type: 'boolean',
    modes: ['deploy', 'build'],
    description:
      "Push the images built (`true`/`false`). `false` is for clusters that read the local Docker engine's images (kind load, minikube). Example: `false`.",
    action: { default: 'true' },
    cli: { flags: '--no-push', help: 'build but do not push (deploys unpinned)' },
  },
  {
    key: 'layer-cache',
    type: 'auto-boolean',
    modes: ['deploy'],
    description:
      "Keep BuildKit's cache of the builds in the GitHub Actions cache between workflow runs (`type=gha`, every step exported, builder stages of multi-stage builds included), so a run that changes some files takes the steps before the first changed one from the cache, even on a fresh runner. `auto`: only in private repositories, since workflows of pull requests from forks can read a public repository's caches, and the cache holds every layer of the images (and build-arg values, which the image history records). `true`: also in public ones. `false`: never. Needs the runner's cache service. Example: `true`.",
    action: { default: 'auto' },
  },
  {
    key: 'cache',
    type: 'build-cache',
    modes: ['deploy', 'plan', 'build'],
    description:
      "BuildKit's cache of the builds between runs: `registry` (an image `<image>:buildcache` beside each image), `registry=<ref>`, `local=<directory>` (one subdirectory per image) or `gha` (the GitHub Actions cache service). Every step is exported, builder stages included. Empty: only the builder's own cache.",
    cli: {
      flags: '--cache <backend>',
      help: 'BuildKit cache between runs: registry (<image>:buildcache), registry=<ref>, local=<dir>, gha (default: none)',
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "BuildKit's cache of the builds between pipelines: `registry` (an image `<image>:buildcache` beside each image), `registry=<ref>`, or `local=<directory>` (a path of the job's `cache:`). Empty, none.",
      variable: 'SPREAD_INPUT_CACHE',
    },
  },
  {
    key: 'platforms',
    type: 'platforms',
    modes: ['deploy', 'plan', 'build', 'status'],
    description:
      "Platforms to build every image for, comma-separated; several push a manifest list, deployed by its digest. Building RUN steps for another architecture needs emulation on the runner (docker/setup-qemu-action). Empty: the builder's own platform. Example: `linux/amd64,linux/arm64`.",
    action: { default: '' },
    cli: {
      flags: '--platform <platforms>',
      help: "platforms to build, comma-separated, e.g. linux/amd64,linux/arm64 (default: the builder's own)",
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "Platforms to build, comma-separated, e.g. `linux/amd64,linux/arm64` (a manifest list, deployed by its digest). Empty, the builder's own.",
      variable: 'SPREAD_INPUT_PLATFORMS',
    },
  },
  {
    key: 'attestations',
    type: 'choice',
    choices: ['false', 'provenance', 'true'],
    modes: ['deploy', 'plan', 'build', 'status'],
    description:
      'Attach attestations to the images pushed: `provenance` (a SLSA provenance, mode=min), `true` (provenance and an SBOM; the SBOM scanner image docker/buildkit-syft-scanner is pulled from Docker Hub) or `false`. Off by default: they turn a single image into an index, which some registries and scanners mishandle. Example: `provenance`.',
    action: { default: 'false' },
    cli: {
      flags: '--attestations <which>',
      help: 'attestations on pushed images: provenance, true (provenance and SBOM) or false',
    },
  },
  {
    key: 'build-secrets',
    type: 'build-secrets',
    modes: ['deploy', 'plan', 'build'],
    description:
      'Build secrets, one `id=value` line each, for `RUN --mount=type=secret,id=…`, the value taken from a secret of the workflow. They reach no image layer, history entry or log, and the values are masked. Example: `npm=` followed by the NPM_TOKEN secret in an expression.',
    action: { default: '' },
    cli: {
      flags: '--secret <id=ID,env=VARIABLE>',
      help: 'build secret for RUN --mount=type=secret, its value from an environment variable; repeatable',
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "Build secrets for `RUN --mount=type=secret,id=…`, one `ID=VARIABLE` a line: the secret's value is the CI/CD variable VARIABLE (mask it). It reaches no image layer, history or log. Empty, none.",
      variable: 'SPREAD_INPUT_BUILD_SECRETS',
    },
  },
  {
    key: 'builder',
    type: 'string',
    modes: ['deploy', 'plan', 'build'],
    description:
      'The buildx builder to build with (the `name` output of docker/setup-buildx-action). Empty: the current builder (BUILDX_BUILDER). Example: `builder-1234`.',
    action: { default: '' },
    cli: {
      flags: '--builder <name>',
      help: 'buildx builder to build with (default: $BUILDX_BUILDER, else the current one)',
    },
  },
  {
    key: 'helm',
    type: 'string',
    modes: ['deploy', 'plan', 'render', 'build', 'status'],
    description:
      'The Helm binary (3 or 4) that renders folders holding `Chart.yaml` with `helm template`. Empty: `helm` on PATH. Example: `/usr/local/bin/helm3`.',
    action: { default: '' },
    cli: { flags: '--helm <binary>', help: 'Helm 3 or 4 binary that renders charts (default: helm on PATH)' },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "The Helm binary (3 or 4) that renders charts. Empty, the `helm` of spread's image (Helm 4).",
      variable: 'SPREAD_INPUT_HELM',
    },
  },
  {
    key: 'helm-values',
    type: 'paths',
    modes: ['deploy', 'plan', 'render', 'build', 'status'],
    description:
      "Values files for every chart, in order (later ones win, as with `helm -f`), one a line or comma-separated, each relative to the chart's folder; a chart without one is an error. Example: `values-prod.yaml`.",
    action: { default: '' },
    cli: { flags: '--helm-values <file>', help: "values file relative to each chart's folder, repeatable" },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "Values files for every chart, one a line, relative to each chart's folder (later ones win). Example `values-prod.yaml`.",
      variable: 'SPREAD_INPUT_HELM_VALUES',
    },
  },
  {
    key: 'helm-set',
    type: 'key-values',
    modes: ['deploy', 'plan', 'render', 'build', 'status'],
    description:
      "Values for every chart, one `KEY=VALUE` line each, passed as Helm's `--set` (after the values files). Example: `replicaCount=3`.",
    action: { default: '' },
    cli: { flags: '--helm-set <KEY=VALUE>', help: "chart value as Helm's --set, repeatable" },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "Chart values, one `KEY=VALUE` a line, passed as Helm's `--set` (the log shows their keys only). Empty, none.",
      variable: 'SPREAD_INPUT_HELM_SET',
    },
  },
  {
    key: 'prune',
    type: 'boolean',
    modes: ['deploy', 'plan'],
    description:
      'Delete objects of this deployment that the directory no longer holds, after a fully successful apply only (`true`/`false`). Example: `false`.',
    action: { default: 'true' },
    cli: { flags: '--no-prune', help: 'keep objects of this deployment that the directory no longer holds' },
    gitlab: {
      type: 'boolean',
      default: true,
      description: 'Delete objects of this deployment that the directory no longer holds.',
      variable: 'SPREAD_INPUT_PRUNE',
    },
  },
  {
    key: 'prune-crds',
    type: 'boolean',
    modes: ['deploy', 'plan', 'delete'],
    description:
      'Prune CustomResourceDefinitions the directory dropped as well (`true`/`false`). Deleting a CRD deletes every custom resource of it, whoever made them, so by default a dropped CRD is kept and the plan and summary say so, with its custom resources counted; with `true` the plan lists how many go with it. Example: `true`.',
    action: { default: 'false' },
    cli: {
      flags: '--prune-crds',
      help: 'prune CRDs the directory dropped too, with every custom resource of them (kept by default)',
      helpIn: {
        delete: "delete the deployment's CRDs too, with every custom resource of them (kept by default)",
      },
    },
    gitlab: {
      type: 'boolean',
      default: false,
      description:
        'Prune CustomResourceDefinitions the directory dropped too, with every custom resource of them; by default a dropped CRD is kept and the report says so.',
      variable: 'SPREAD_INPUT_PRUNE_CRDS',
    },
  },
  {
    key: 'wait',
    type: 'boolean',
    modes: ['deploy', 'rollback'],
    description:
      'Wait until the rollout is healthy (`true`/`false`). Failing pods (image pull errors, crash loops) fail the step early with their events. Example: `false`.',
    action: { default: 'true' },
    cli: { flags: '--no-wait', help: 'do not wait for the rollout' },
    gitlab: {
      type: 'boolean',
      default: true,
      description: 'Wait until the rollout is healthy.',
      variable: 'SPREAD_INPUT_WAIT',
    },
  },
  {
    key: 'timeout',
    type: 'duration',
    modes: ['deploy', 'rollback'],
    description: 'Limit of the rollout wait, as a duration (h, m, s, ms, or bare seconds). Example: `90s`.',
    action: { default: '5m', field: 'timeoutMs' },
    cli: { flags: '--timeout <duration>', help: 'limit of the rollout wait, e.g. 90s, 5m' },
    gitlab: {
      type: 'string',
      default: '5m',
      description: 'Limit of the rollout wait, as a duration (`90s`, `5m`).',
      variable: 'SPREAD_INPUT_TIMEOUT',
    },
  },
  {
    key: 'force-conflicts',
    type: 'boolean',
    modes: ['deploy', 'plan', 'rollback'],
    description:
      'Take over fields owned by other field managers (kubectl edit, another tool) instead of failing (`true`/`false`). Example: `true`.',
    action: { default: 'false' },
    cli: { flags: '--force-conflicts', help: 'take over fields owned by other field managers' },
    gitlab: {
      type: 'boolean',
      default: false,
      description:
        "Take over fields that other field managers own (server-side apply's force); without it such a conflict fails the deploy, naming the manager.",
      variable: 'SPREAD_INPUT_FORCE_CONFLICTS',
    },
  },
  {
    key: 'replace',
    type: 'boolean',
    modes: ['deploy', 'plan'],
    description:
      "Delete and recreate an object whose change the API server refuses because a field is immutable, such as a Job's template or a Service's clusterIP (`true`/`false`). Example: `true`.",
    action: { default: 'false' },
    cli: {
      flags: '--replace',
      help: 'delete and re-create objects whose immutable fields change (selector, Job template…)',
    },
    gitlab: {
      type: 'boolean',
      default: false,
      description:
        "Delete and re-create objects whose immutable fields change (a selector, a Job's template); without it such a change fails the plan.",
      variable: 'SPREAD_INPUT_REPLACE',
    },
  },
  {
    key: 'adopt',
    type: 'boolean',
    modes: ['deploy', 'plan'],
    description:
      'Take over objects that already exist but that this deployment did not create (made by hand, by another tool, or by another spread deployment), and a deployment of the same name deployed from another folder or repository; without it they fail the plan, since a later deploy without them would delete them. Adopting also takes over the fields kubectl set, so those the directory does not declare are removed (`true`/`false`). Example: `true`.',
    action: { default: 'false' },
    cli: {
      flags: '--adopt',
      help: 'take over existing objects that spread did not deploy here (made by hand, another tool, or another spread deployment), a deployment of the same name from another folder, and the fields kubectl set on them: those the directory does not declare are removed',
    },
    gitlab: {
      type: 'boolean',
      default: false,
      description:
        'Take over objects that already exist but that this deployment did not create (by hand, another tool, another spread deployment), and the fields kubectl set on them: those the directory does not declare are removed. Without it they fail the plan.',
      variable: 'SPREAD_INPUT_ADOPT',
    },
  },
  {
    key: 'rollback-on-failure',
    type: 'boolean',
    modes: ['deploy'],
    description:
      "When the rollout fails, apply the deployment's last revision whose rollout succeeded again (`true`/`false`). The step still fails. Example: `true`.",
    action: { default: 'false' },
    cli: {
      flags: '--rollback-on-failure',
      help: 'when the rollout fails, apply the last revision whose rollout succeeded again',
    },
    gitlab: {
      type: 'boolean',
      default: false,
      description:
        'When the rollout fails, apply the last revision whose rollout succeeded again (the job still fails).',
      variable: 'SPREAD_INPUT_ROLLBACK_ON_FAILURE',
    },
  },
  {
    key: 'lock-timeout',
    type: 'duration',
    modes: ['deploy', 'rollback', 'delete'],
    description:
      'How long to wait for another deploy of the same deployment (a Lease in its namespace) to finish before failing, as a duration. Example: `10m`.',
    action: { default: '5m', field: 'lockTimeoutMs' },
    cli: {
      flags: '--lock-timeout <duration>',
      help: 'how long to wait for another deploy of the same deployment',
      helpIn: {
        rollback: 'how long to wait for another deploy of the same deployment, e.g. 90s, 5m',
        delete: 'how long to wait for another deploy of the same deployment, e.g. 90s, 5m',
      },
    },
    gitlab: {
      type: 'string',
      default: '5m',
      description:
        'How long a deploy waits for another deploy of the same deployment to end, as a duration (`30s`, `5m`).',
      variable: 'SPREAD_INPUT_LOCK_TIMEOUT',
    },
  },
  {
    key: 'lock-lease-duration',
    type: 'lease-duration',
    modes: ['deploy', 'rollback', 'delete'],
    description:
      "How long the deploy's lock (the Lease `spread.<name>`, renewed every third of it) outlives its last renewal: when a deploy crashes or its runner is killed, the next deploy takes the lock over after this, as a duration in whole seconds. Example: `2m`.",
    action: { default: '30s', field: 'lockLeaseDurationSeconds' },
    cli: {
      flags: '--lock-lease-duration <duration>',
      help: "how long the deploy's lock (a Lease) outlives its last renewal: another deploy takes over a crashed deploy's lock after this, whole seconds",
    },
    gitlab: {
      type: 'string',
      default: '30s',
      description:
        "How long the deploy's lock (a Lease, renewed every third of it) outlives its last renewal; a crashed deploy's lock is taken over after it, in whole seconds (`30s`, `2m`).",
      variable: 'SPREAD_INPUT_LOCK_LEASE_DURATION',
    },
  },
  {
    key: 'concurrency',
    type: 'count',
    modes: ['deploy', 'plan'],
    description: 'Requests in flight at once within one apply group. Example: `16`.',
    action: { default: '64' },
    cli: { flags: '--concurrency <n>', help: 'requests in flight at once within one apply group' },
  },
  {
    key: 'wait-load-balancer',
    type: 'boolean',
    modes: ['deploy'],
    description:
      'Wait until Services of type LoadBalancer have an address, bounded by `timeout`; otherwise their node ports and address (if any) are reported and the deploy moves on (`true`/`false`). Example: `true`.',
    action: { default: 'false' },
    cli: {
      flags: '--wait-load-balancer',
      help: 'wait until LoadBalancer Services have an address (bounded by --timeout)',
    },
  },
  {
    key: 'object-annotations',
    type: 'boolean',
    modes: ['deploy', 'plan'],
    description:
      'Annotate each object this deploy changes with the commit, the run URL and the time (`spread.rsprd.com/commit`, `run-url`, `deployed-at`); turn off where those annotations are unwanted (`true`/`false`). Example: `false`.',
    action: { default: 'true' },
    cli: {
      flags: '--no-annotate',
      help: "don't annotate changed objects with the commit, run URL and time of the deploy (and remove those an earlier deploy set)",
    },
  },
  {
    key: 'annotate',
    type: 'boolean',
    modes: ['deploy', 'plan', 'delete'],
    description:
      'Turn manifest errors and warnings (invalid objects, deprecated APIs, Services without selectors, `:latest` images) into annotations on the files of the pull request (`true`/`false`). Example: `false`.',
    action: { default: 'true' },
  },
  {
    key: 'comment',
    type: 'boolean',
    modes: ['plan'],
    description:
      'In mode `plan` on a `pull_request` event, post the plan as a pull request comment (`true`/`false`). Example: `false`.',
    action: { default: 'true' },
  },
  {
    key: 'url-from',
    type: 'url-from',
    modes: ['deploy'],
    description:
      'The object whose address is the output `url`, as `KIND/NAME` (an Ingress, HTTPRoute or Service). Empty: the first Ingress with a host (`https` when its `tls` lists the host), else the first HTTPRoute with a hostname, else the first LoadBalancer Service with an address; by name within a kind. Example: `ingress/web`.',
    action: { default: '' },
    cli: {
      flags: '--url-from <KIND/NAME>',
      help: "the object whose address is the report's url, e.g. ingress/web (default: the first Ingress with a host, else HTTPRoute with a hostname, else LoadBalancer Service with an address)",
    },
    gitlab: {
      type: 'string',
      default: '',
      description:
        "The object whose address is the environment's URL, as `KIND/NAME` (`ingress/web`, `httproute/web`, `service/web`). Empty, the first Ingress with a host, else HTTPRoute with a hostname, else LoadBalancer Service with an address.",
      variable: 'SPREAD_INPUT_URL_FROM',
    },
  },
  {
    key: 'deployment',
    type: 'boolean',
    modes: ['deploy', 'delete'],
    description:
      "Record the deploy as a GitHub Deployment of the commit (on a pull request, its head commit): `in_progress` while it runs, then `success` with the `url` and the run's page, or `failure`; older deployments of the environment become inactive, and mode `delete` marks the environment's deployments inactive. Off by default, since a job with `environment:` gets a deployment from GitHub already. Needs `deployments: write`; without it the step only warns (`true`/`false`). Example: `true`.",
    action: { default: 'false' },
  },
  {
    key: 'environment',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description:
      'The GitHub environment of that deployment. Empty: the context deployed to; on a pull request whose head branch `environments` maps, `CONTEXT/BRANCH`, a transient preview environment; with neither, `production`. Example: `staging`.',
    action: { default: '' },
    gitlab: {
      type: 'string',
      default: 'production',
      description: "The GitLab environment's name.",
      job: true,
    },
  },
  {
    key: 'deploy-comment',
    type: 'boolean',
    modes: ['deploy'],
    description:
      "After a successful deploy, update the deployment's plan comment on its pull request to say what was deployed, where, the `url` and the revision, instead of leaving a stale plan: the event's pull request, or on `push` those the commit belongs to (the merged one), through the REST API (created when the plan posted none). Needs `pull-requests: write`; problems only warn (`true`/`false`). Example: `true`.",
    action: { default: 'false' },
  },
  {
    key: 'github-token',
    type: 'secret',
    modes: ['deploy', 'plan', 'delete'],
    description:
      "Token for the pull request comment and the GitHub deployment; it needs `pull-requests: write` and, with `deployment: true`, `deployments: write` (a fork's pull request gets a read-only token: the step then only warns). Default: the job's token (`github.token`). Example: the secret BOT_TOKEN (`secrets.BOT_TOKEN` in an expression).",
    // The runner evaluates the expression; the parser takes an empty input as none.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template.
    action: { default: '${{ github.token }}' },
  },
  {
    key: 'target',
    type: 'string',
    modes: ['deploy', 'plan', 'build', 'status'],
    description: 'Dockerfile stage to build',
    cli: { flags: '--target <stage>' },
  },
  {
    key: 'output',
    type: 'choice',
    choices: ['text', 'json'],
    modes: ['deploy', 'plan', 'build', 'status', 'history', 'rollback', 'list', 'delete'],
    description: 'report format on stdout',
    cli: {
      flags: '-o, --output <format>',
      helpIn: {
        history: 'output format on stdout',
        rollback: 'output format on stdout',
        list: 'output format on stdout',
        delete: 'output format on stdout',
      },
      default: 'text',
    },
  },
  {
    key: 'allow-empty',
    type: 'boolean',
    modes: ['deploy', 'plan'],
    description: 'let an input with no objects prune every object of the deployment',
    cli: {
      flags: '--allow-empty',
    },
  },
  {
    key: 'show-secrets',
    type: 'boolean',
    modes: ['render'],
    description: 'print Secret values instead of <redacted>',
    cli: { flags: '--show-secrets' },
  },
  {
    key: 'verbose',
    type: 'boolean',
    modes: ['deploy', 'plan', 'render', 'build', 'status', 'history', 'rollback', 'list', 'delete'],
    description: 'trace input reading and API requests',
    cli: {
      flags: '-v, --verbose',
      helpIn: {
        render: 'trace input reading',
        build: 'trace input reading',
        status: 'trace input reading and entity construction',
        history: 'trace API requests',
        rollback: 'trace API requests',
        list: 'trace API requests',
        delete: 'trace API requests',
      },
    },
  },
  {
    key: 'environment-url',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description:
      "The environment's URL (GitLab reads it from the dotenv report's SPREAD_ENVIRONMENT_URL). Empty, where the deployed application answers: its Ingress, HTTPRoute or LoadBalancer Service (see `url-from`), else none.",
    gitlab: {
      type: 'string',
      default: '',
      description:
        "The environment's URL (GitLab reads it from the dotenv report's SPREAD_ENVIRONMENT_URL). Empty, where the deployed application answers: its Ingress, HTTPRoute or LoadBalancer Service (see `url-from`), else none.",
      variable: 'SPREAD_INPUT_ENVIRONMENT_URL',
    },
  },
  {
    key: 'environment-action',
    type: 'choice',
    choices: ['start', 'prepare', 'verify', 'access', 'stop'],
    modes: ['deploy', 'plan', 'delete'],
    description:
      'The environment action; use `prepare` with mode `plan` so a plan is no deployment, and `stop` with mode `delete` for an `on_stop` job.',
    gitlab: {
      type: 'string',
      default: 'start',
      options: ['start', 'prepare', 'verify', 'access', 'stop'],
      description:
        'The environment action; use `prepare` with mode `plan` so a plan is no deployment, and `stop` with mode `delete` for an `on_stop` job.',
      job: true,
    },
  },
  {
    key: 'resource-group',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description: "The job's resource group, so two deploys of one environment never overlap.",
    gitlab: {
      type: 'string',
      default: 'spread-production',
      description: "The job's resource group, so two deploys of one environment never overlap.",
      job: true,
    },
  },
  {
    key: 'image',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description:
      "The job's image. The default is spread's image of this release; to run spread from `package`, name an image with Node 24 (and npm for a package name), e.g. `node:24-slim`.",
    gitlab: {
      type: 'string',
      default: 'ghcr.io/redspread/spread:0.1.0',
      description:
        "The job's image. The default is spread's image of this release; to run spread from `package`, name an image with Node 24 (and npm for a package name), e.g. `node:24-slim`.",
      job: true,
    },
  },
  {
    key: 'package',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description:
      "Where spread comes from when it is not the image's own: the npm package `@redspread/spread` (or another package that provides it) at exactly `version`, or a path to a checkout with dist/ built (the self-test). Empty, the image's spread (/opt/spread, SPREAD_HOME).",
    gitlab: {
      type: 'string',
      default: '',
      description:
        "Where spread comes from when it is not the image's own: the npm package `@redspread/spread` (or another package that provides it) at exactly `version`, or a path to a checkout with dist/ built (the self-test). Empty, the image's spread (/opt/spread, SPREAD_HOME).",
      variable: 'SPREAD_INPUT_PACKAGE',
    },
  },
  {
    key: 'version',
    type: 'string',
    modes: ['deploy', 'plan', 'delete'],
    description: 'Exact version of the npm package `package` (required with a package name).',
    gitlab: {
      type: 'string',
      default: '',
      description: 'Exact version of the npm package `package` (required with a package name).',
      variable: 'SPREAD_INPUT_VERSION',
    },
  },
  {
    key: 'mr-note',
    type: 'boolean',
    modes: ['plan'],
    description:
      'In a merge request pipeline in mode `plan`, post the plan as one note (needs SPREAD_GITLAB_TOKEN).',
    gitlab: {
      type: 'boolean',
      default: true,
      description:
        'In a merge request pipeline in mode `plan`, post the plan as one note (needs SPREAD_GITLAB_TOKEN).',
      variable: 'SPREAD_MR_NOTE',
    },
  },
  {
    key: 'services',
    type: 'array',
    modes: ['deploy', 'plan', 'delete'],
    description: 'Services of the job, e.g. `[{name: "docker:27-dind", alias: docker}]` to build images.',
    gitlab: {
      type: 'array',
      default: [],
      description: 'Services of the job, e.g. `[{name: "docker:27-dind", alias: docker}]` to build images.',
      job: true,
    },
  },
  {
    key: 'docker-host',
    type: 'string',
    modes: ['deploy', 'plan', 'build'],
    description:
      'DOCKER_HOST of the Docker engine that builds images, e.g. `tcp://docker:2375`. Empty, the default.',
    gitlab: {
      type: 'string',
      default: '',
      description:
        'DOCKER_HOST of the Docker engine that builds images, e.g. `tcp://docker:2375`. Empty, the default.',
      variable: 'SPREAD_INPUT_DOCKER_HOST',
    },
  },
  {
    key: 'rules',
    type: 'array',
    modes: ['deploy', 'plan', 'delete'],
    description: 'When the job runs (GitLab `rules`). Default, on every pipeline.',
    gitlab: {
      type: 'array',
      default: [{ when: 'on_success' }],
      description: 'When the job runs (GitLab `rules`). Default, on every pipeline.',
      job: true,
    },
  },
] as const satisfies readonly Setting[];

/** A setting's key: `force-conflicts`. */
export type SettingKey = (typeof SETTINGS)[number]['key'];

const BY_KEY: ReadonlyMap<string, Setting> = new Map(SETTINGS.map((s) => [s.key, s]));

/** The setting of `key`. */
export function setting(key: SettingKey): Setting {
  return BY_KEY.get(key)!;
}

/** The long flag of a CLI flag: `--namespace` of `-n, --namespace <namespace>`, `--no-prune`. */
export function longFlag(flag: CliFlag): string {
  return /--[\w-]+/.exec(flag.flags)![0];
}

/** The settings that apply to `command`, in table order. */
export function settingsOf(command: Command): readonly Setting[] {
  return SETTINGS.filter((s: Setting) => s.modes.includes(command));
}
