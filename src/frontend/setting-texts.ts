/**
 * Each setting as the front ends say it (keys, types, modes, defaults: src/base/settings.ts): the
 * Action's description (action.yml's, the default text elsewhere), the CLI's flag and help, the GitLab
 * input. This file is over 400 lines because it is this table: one entry per setting.
 */
import type { Command, SettingKey } from '../base/settings.js';

/** A setting's CLI flag. */
export interface CliFlag {
  /** Commander's flags: `--adopt`, `--no-prune` (default on), `-n, --namespace <namespace>`. */
  readonly flags: string;
  /** The help text (default: the setting's description), and where a command says it differently, that command's. */
  readonly help?: string;
  readonly helpIn?: Partial<Record<Command, string>>;
  /** Where a command's default differs from the setting's (`render`: namespace `default`). */
  readonly defaultIn?: Partial<Record<Command, string>>;
  /** The commands that take the flag, when not every one of the setting's modes does. */
  readonly commands?: readonly Command[];
}

/** A setting's Action input (action.yml), named by the setting's key; `true` when nothing differs. */
export interface ActionTexts {
  /** action.yml's default when not the setting's: one holding `${{ … }}` is the runner's to evaluate. */
  readonly default?: string;
}

/** A setting's GitLab component input (templates/deploy.yml's spec:inputs), named by the setting's key. */
export interface GitLabTexts {
  /** Where the component says it differently from the setting's description. */
  readonly description?: string;
  /** The default when not the setting's (typed: a boolean, an array); says why where it differs. */
  readonly default?: string | boolean | readonly unknown[];
  /** The job variable the script reads it from (`SPREAD_INPUT_PRUNE`), which passes the CLI flag on. */
  readonly variable?: string;
  /** Interpolated in the job's own keywords (stage, image, rules…) instead of a variable. */
  readonly job?: true;
  /** Passed to the CLI as an argument (path, context, the command), not as its flag. */
  readonly argument?: true;
  /** The choices the component takes, when fewer than the setting's (the Action's own fleet modes). */
  readonly options?: readonly string[];
}

/** What the front ends say of one setting; a front end without its entry does not take the setting. */
export interface SettingTexts {
  /** What it does, as action.yml documents it (with an example), or the front end's own text. */
  readonly description: string;
  readonly action?: true | ActionTexts;
  readonly cli?: CliFlag;
  readonly gitlab?: GitLabTexts;
}

/** The texts of every setting, by key (every key of src/base/settings.ts, no other). */
export const SETTING_TEXTS = {
  stage: { description: 'The stage the job runs in.', gitlab: { job: true } },
  'job-name': {
    description: "The job's name; include the component twice with different names to deploy twice.",
    gitlab: { job: true },
  },
  path: {
    description: 'Directory in spread layout to deploy, relative to the workspace. Example: `deploy/web`.',
    action: true,
    gitlab: {
      description: 'Directory in spread layout, relative to the project. Example `deploy/web`.',
      variable: 'SPREAD_INPUT_PATH',
      argument: true,
    },
  },
  context: {
    description:
      "kubeconfig context to deploy to. Empty: the kubeconfig's current context. A context that does not exist fails the step and lists those that do. Not together with `environments`. Example: `production`.",
    action: true,
    cli: {
      flags: '--context <context>',
      help: "kubeconfig context, as the CONTEXT argument (kubectl's flag)",
      helpIn: { status: 'compare with the cluster of this kubeconfig context (nothing is written)' },
    },
    gitlab: {
      description:
        "kubeconfig context; a GitLab agent's is `<agent project path>:<agent name>`. Empty: the kubeconfig's current context.",
      variable: 'SPREAD_INPUT_CONTEXT',
      argument: true,
    },
  },
  environments: {
    description:
      'Which context each branch deploys to, one `BRANCH=CONTEXT` line each, first match wins. BRANCH is a glob: `*` matches within one path segment, `**` across `/`, `?` one character. A branch no line matches is not deployed: the step ends with a notice and `skipped` is `true`. The branch is the pushed branch or tag (GITHUB_REF_NAME); on `pull_request` events it is the base branch in mode `plan` (the plan previews the merge), and modes `deploy` and `delete` deploy nothing (`skipped` is `true`): a pull request deploys only to a preview `spread.yaml` declares, never by a rule matching its head branch, which whoever opens it names. Not together with `context`. The short form of the `environments` that `spread.yaml` declares (docs/environments.md): a step given both fails, saying to use one. Example: `main=production` and `release/*=staging` on two lines.',
    action: true,
  },
  from: {
    description:
      "Mode `promote`: the environment promoted from, as spread.yaml's `environments` names it; its current revision (its rollout succeeded, its commit is the one checked out) is deployed to `environment` with the image digests it ran, building nothing. Empty: the `after:` of the environment promoted to. Example: `staging`.",
    action: true,
    cli: {
      flags: '--from <environment>',
      help: "the environment promoted from (default: the `after:` of --to's environment in spread.yaml)",
    },
    gitlab: {
      description:
        "Mode `promote`: the environment promoted from (spread.yaml's `environments`); its current revision goes to `environment` with the digests it ran. Empty: the `after:` of `environment`.",
      variable: 'SPREAD_INPUT_FROM',
    },
  },
  to: {
    description:
      "The environment promoted to, as spread.yaml's `environments` names it (the Action and the component take `environment`).",
    cli: { flags: '--to <environment>', help: 'the environment promoted to (spread.yaml `environments`)' },
  },
  'from-kubeconfig': {
    description:
      'Mode `promote`: the kubeconfig (content, from a secret) that reaches the environment promoted from, read only (its revisions), when `kubeconfig` does not reach it; masked as `kubeconfig` is. Empty: `kubeconfig`. Example: the secret STAGING_KUBECONFIG (`secrets.STAGING_KUBECONFIG` in an expression).',
    action: true,
    cli: {
      flags: '--from-kubeconfig <file>',
      help: 'kubeconfig file that reaches the environment promoted from (default: --kubeconfig)',
    },
  },
  kubeconfig: {
    description:
      "The kubeconfig's content (plain YAML or base64), from a secret. It and each token, key and password in it are masked in the log. It stays in memory, except when a user authenticates with an `exec` or `auth-provider` plugin: then it is written to a 0600 file in RUNNER_TEMP for the plugin and removed when the step ends, even when it fails. Empty: `$KUBECONFIG`, then `~/.kube/config` (e.g. from azure/k8s-set-context or aws eks update-kubeconfig). Example: the secret KUBECONFIG (`secrets.KUBECONFIG` in an expression).",
    action: true,
    cli: {
      flags: '--kubeconfig <file>',
      help: 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)',
      helpIn: { status: 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config); implies a comparison' },
    },
  },
  namespace: {
    description:
      "Namespace for namespaced objects that name none. Empty: the context's namespace, then `default`. Given, an object naming another namespace fails the step (as `kubectl -n`). Example: `team-a`.",
    action: true,
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
      description: "Namespace for objects that name none. Empty, the context's, then `default`.",
      variable: 'SPREAD_INPUT_NAMESPACE',
    },
  },
  name: {
    description:
      "The deployment's name, which tracks its objects (the ApplySet) for prune. Empty: the directory's name; a common one (`k8s`, `deploy`, `app`, `manifests`…) gets the repository's name, or the folder above's, before it (`shop-k8s`), unless the folder was deployed under its own name before. Example: `web`.",
    action: true,
    cli: {
      flags: '--name <name>',
      help: "the deployment's name (default: the directory's name; a common one such as k8s gets the repository's name before it, e.g. shop-k8s)",
      // `spread delete NAME` names the deployment by its argument.
      commands: ['deploy', 'plan', 'render', 'status', 'promote'],
    },
    gitlab: {
      description:
        "The deployment's name, which tracks its objects for prune. Empty, the directory's name (a common one such as k8s gets the project's name before it: shop-k8s).",
      variable: 'SPREAD_INPUT_NAME',
    },
  },
  kustomize: {
    description:
      'The kustomize binary that renders folders holding `kustomization.yaml` (`kustomize build`); a `kubectl` binary renders with `kubectl kustomize`. Empty: `kustomize` on PATH, else `kubectl kustomize`. Example: `/usr/local/bin/kustomize`.',
    action: true,
    cli: {
      flags: '--kustomize <binary>',
      help: 'kustomize binary that renders kustomizations (default: kustomize on PATH, else kubectl kustomize)',
    },
    gitlab: {
      description:
        "The kustomize binary that renders kustomizations. Empty, the `kustomize` of spread's image.",
      variable: 'SPREAD_INPUT_KUSTOMIZE',
    },
  },
  'kustomize-enable-helm': {
    description:
      "Let kustomizations inflate the charts their `helmCharts` list (kustomize's `--enable-helm`), with `helm` on PATH (`true`/`false`). Example: `true`.",
    action: true,
    cli: {
      flags: '--kustomize-enable-helm',
      help: "inflate kustomizations' helmCharts with Helm (kustomize --enable-helm)",
    },
    gitlab: { variable: 'SPREAD_INPUT_KUSTOMIZE_ENABLE_HELM' },
  },
  mode: {
    description:
      "`deploy` builds, applies, prunes and waits; `plan` checks every object with a server-side dry run, writes nothing, and on a pull request posts the plan as one comment per deployment (updated on later pushes); `delete` removes every object of the deployment; `drift`, for a `schedule:` workflow, compares the deployment (each environment spread.yaml declares) with the cluster and keeps one issue per drifted deployment, with what changed and which field manager changed it (docs/drift.md); `promote` deploys `environment` with the commit and image digests its `after:` environment's current revision ran, building nothing (docs/environments.md); `fleet-plan`, with `environment` naming a fleet, outputs each wave's `matrix` and the `waves`, plans every cluster and posts the fleet's plan as one comment; `fleet-soak`, in a job after a wave's legs, keeps reading the rollout state of what each leg of `wave` waited for during the wave's `soak` (spread.yaml), and fails when one fails, disappears or is not ready at the end; `fleet-report` gathers the legs' report files from `reports` into one job summary and comment, and fails when a leg failed or did not run (docs/fleets.md). Example: `plan`.",
    action: true,
    gitlab: {
      options: ['deploy', 'plan', 'delete', 'drift', 'promote', 'fleet-plan', 'fleet-report'],
      description:
        "`deploy` applies, prunes and waits; `plan` is a server-side dry run that writes nothing; `delete` removes every object of the deployment (named by `name`, else the name deploy gives `path`), as an environment's `on_stop` job (with `environment-action: stop`); `drift`, for a scheduled pipeline, compares each environment spread.yaml declares (else the deployment) with its cluster and keeps one issue per drifted deployment (docs/drift.md); `promote` deploys `environment` with the commit and image digests of the current revision of the environment it is promoted from (`from`, else its `after:`), building nothing; `fleet-plan`, with `environment` naming a fleet, writes `.spread/fleet-pipeline.yml`, a child pipeline of a stage per wave (per batch of `maxParallel`) and a final fleet-report job, for a `trigger: include: artifact:` job, and plans every cluster into one merge request note; `fleet-report`, in a final job (`when: always`) after the fleet's legs, gathers each leg's `.spread/spread-report-CLUSTER.json` artifact into one report and merge request note, and fails when a leg failed or did not run (docs/fleets.md).",
      variable: 'SPREAD_INPUT_MODE',
      argument: true,
    },
  },
  registry: {
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template.
      'Registry that images marked `&` in the directory are tagged for and pushed to, as `host[:port][/path]`. Log in before this step (docker/login-action): credentials come from the Docker config. Lower case, as every image repository: `github.repository_owner` keeps the owner\'s capitals, so lower-case it in a step first (`echo "name=${GITHUB_REPOSITORY_OWNER,,}" >> "$GITHUB_OUTPUT"`). Example: `ghcr.io/acme`.',
    action: true,
    cli: {
      flags: '--registry <registry>',
      help: 'where & images are pushed, e.g. localhost:5000/team-a (default: $SPREAD_REGISTRY)',
    },
    gitlab: {
      description:
        'Registry (host[:port][/path]) that images marked `&` are tagged for and pushed to, e.g. `$CI_REGISTRY_IMAGE`. Empty, none.',
      variable: 'SPREAD_INPUT_REGISTRY',
    },
  },
  tag: {
    description:
      'Tag of the images built, and the one they are deployed with (pinned by digest whatever the tag). Empty: a tag of the build context, `ctx-` and 12 hex digits of its digest, with the commit (GITHUB_SHA, 12 characters) as a second tag; a commit that changes nothing in a build context then rolls no pod. Example: `v1.4.2`.',
    action: true,
    cli: {
      flags: '--tag <tag>',
      help: 'tag of built images, deployed with it (default: ctx-<digest of the build context>, and the commit as a second tag)',
    },
    gitlab: {
      description:
        'Tag of the images marked `&` that are built, and deployed with. Empty, a tag of the build context (`ctx-…`) and the commit (its first 12 characters) as a second tag, so an unchanged context rolls nothing.',
      variable: 'SPREAD_INPUT_TAG',
    },
  },
  'build-args': {
    description:
      'Docker build arguments for every image built, one `KEY=VALUE` line each. Example: `NODE_ENV=production`.',
    action: true,
    cli: { flags: '--build-arg <KEY=VALUE>', help: 'build argument, repeatable' },
    gitlab: {
      description:
        'Build arguments of the images marked `&`, one `KEY=VALUE` a line (the log shows their keys only). Empty, none.',
      variable: 'SPREAD_INPUT_BUILD_ARGS',
    },
  },
  build: {
    description:
      'Build the images marked `&` (`true`/`false`). `false` expects them to exist in the registry with the tag already. Example: `false`.',
    action: true,
    cli: { flags: '--no-build', help: 'do not build & images; pin what the registry holds' },
  },
  push: {
    description:
      "Push the images built (`true`/`false`). `false` is for clusters that read the local Docker engine's images (kind load, minikube). Example: `false`.",
    action: true,
    cli: { flags: '--no-push', help: 'build but do not push (deploys unpinned)' },
  },
  'layer-cache': {
    description:
      "Keep BuildKit's cache of the builds in the GitHub Actions cache between workflow runs (`type=gha`, every step exported, builder stages of multi-stage builds included), so a run that changes some files takes the steps before the first changed one from the cache, even on a fresh runner. `auto`: only in private repositories, since workflows of pull requests from forks can read a public repository's caches, and the cache holds every layer of the images (and build-arg values, which the image history records). `true`: also in public ones. `false`: never. Needs the runner's cache service. Example: `true`.",
    action: true,
  },
  cache: {
    description:
      "BuildKit's cache of the builds between runs: `registry` (an image `<image>:buildcache` beside each image), `registry=<ref>`, `local=<directory>` (one subdirectory per image) or `gha` (the GitHub Actions cache service). Every step is exported, builder stages included. Empty: only the builder's own cache.",
    cli: {
      flags: '--cache <backend>',
      help: 'BuildKit cache between runs: registry (<image>:buildcache), registry=<ref>, local=<dir>, gha (default: none)',
    },
    gitlab: {
      description:
        "BuildKit's cache of the builds between pipelines: `registry` (an image `<image>:buildcache` beside each image), `registry=<ref>`, or `local=<directory>` (a path of the job's `cache:`). Empty, none.",
      variable: 'SPREAD_INPUT_CACHE',
    },
  },
  platforms: {
    description:
      "Platforms to build every image for, comma-separated; several push a manifest list, deployed by its digest. Building RUN steps for another architecture needs emulation on the runner (docker/setup-qemu-action). Empty: the builder's own platform. Example: `linux/amd64,linux/arm64`.",
    action: true,
    cli: {
      flags: '--platform <platforms>',
      help: "platforms to build, comma-separated, e.g. linux/amd64,linux/arm64 (default: the builder's own)",
    },
    gitlab: {
      description:
        "Platforms to build, comma-separated, e.g. `linux/amd64,linux/arm64` (a manifest list, deployed by its digest). Empty, the builder's own.",
      variable: 'SPREAD_INPUT_PLATFORMS',
    },
  },
  attestations: {
    description:
      'Attach attestations to the images pushed: `provenance` (a SLSA provenance, mode=min), `true` (provenance and an SBOM; the SBOM scanner image docker/buildkit-syft-scanner is pulled from Docker Hub) or `false`. Off by default: they turn a single image into an index, which some registries and scanners mishandle. Example: `provenance`.',
    action: true,
    cli: {
      flags: '--attestations <which>',
      help: 'attestations on pushed images: provenance, true (provenance and SBOM) or false',
    },
  },
  'build-secrets': {
    description:
      'Build secrets, one `id=value` line each, for `RUN --mount=type=secret,id=…`, the value taken from a secret of the workflow. They reach no image layer, history entry or log, and the values are masked. Example: `npm=` followed by the NPM_TOKEN secret in an expression.',
    action: true,
    cli: {
      flags: '--secret <id=ID,env=VARIABLE>',
      help: 'build secret for RUN --mount=type=secret, its value from an environment variable; repeatable',
    },
    gitlab: {
      description:
        "Build secrets for `RUN --mount=type=secret,id=…`, one `ID=VARIABLE` a line: the secret's value is the CI/CD variable VARIABLE (mask it). It reaches no image layer, history or log. Empty, none.",
      variable: 'SPREAD_INPUT_BUILD_SECRETS',
    },
  },
  builder: {
    description:
      'The buildx builder to build with (the `name` output of docker/setup-buildx-action). Empty: the current builder (BUILDX_BUILDER). Example: `builder-1234`.',
    action: true,
    cli: {
      flags: '--builder <name>',
      help: 'buildx builder to build with (default: $BUILDX_BUILDER, else the current one)',
    },
  },
  helm: {
    description:
      'The Helm binary (3 or 4) that renders folders holding `Chart.yaml` with `helm template`. Empty: `helm` on PATH. Example: `/usr/local/bin/helm3`.',
    action: true,
    cli: { flags: '--helm <binary>', help: 'Helm 3 or 4 binary that renders charts (default: helm on PATH)' },
    gitlab: {
      description:
        "The Helm binary (3 or 4) that renders charts. Empty, the `helm` of spread's image (Helm 4).",
      variable: 'SPREAD_INPUT_HELM',
    },
  },
  'helm-values': {
    description:
      "Values files for every chart, in order (later ones win, as with `helm -f`), one a line or comma-separated, each relative to the chart's folder; a chart without one is an error. Example: `values-prod.yaml`.",
    action: true,
    cli: { flags: '--helm-values <file>', help: "values file relative to each chart's folder, repeatable" },
    gitlab: {
      description:
        "Values files for every chart, one a line, relative to each chart's folder (later ones win). Example `values-prod.yaml`.",
      variable: 'SPREAD_INPUT_HELM_VALUES',
    },
  },
  'helm-set': {
    description:
      "Values for every chart, one `KEY=VALUE` line each, passed as Helm's `--set` (after the values files). Example: `replicaCount=3`.",
    action: true,
    cli: { flags: '--helm-set <KEY=VALUE>', help: "chart value as Helm's --set, repeatable" },
    gitlab: {
      description:
        "Chart values, one `KEY=VALUE` a line, passed as Helm's `--set` (the log shows their keys only). Empty, none.",
      variable: 'SPREAD_INPUT_HELM_SET',
    },
  },
  prune: {
    description:
      'Delete objects of this deployment that the directory no longer holds, after a fully successful apply only (`true`/`false`). Example: `false`.',
    action: true,
    cli: { flags: '--no-prune', help: 'keep objects of this deployment that the directory no longer holds' },
    gitlab: {
      description: 'Delete objects of this deployment that the directory no longer holds.',
      variable: 'SPREAD_INPUT_PRUNE',
    },
  },
  'include-kept': {
    description:
      'With `mode: delete`, delete the objects whose annotations ask to be kept as well (`spread.rsprd.com/prune: keep`, `helm.sh/resource-policy: keep`, Argo CD `Prune=false`, Flux `prune: disabled`, kapp `delete-strategy: orphan`; `true`/`false`). By default they stay in the cluster, released from the deployment, and the report lists them as kept. Example: `true`.',
    action: true,
    cli: {
      flags: '--include-kept',
      help: 'delete objects annotated to be kept (spread.rsprd.com/prune: keep and its Helm, Argo CD, Flux, kapp equivalents) too',
    },
    gitlab: {
      description:
        'With mode delete, delete the objects annotated to be kept (spread.rsprd.com/prune: keep and its Helm, Argo CD, Flux, kapp equivalents) as well.',
      variable: 'SPREAD_INPUT_INCLUDE_KEPT',
    },
  },
  'prune-crds': {
    description:
      'Prune CustomResourceDefinitions the directory dropped as well (`true`/`false`). Deleting a CRD deletes every custom resource of it, whoever made them, so by default a dropped CRD is kept and the plan and summary say so, with its custom resources counted; with `true` the plan lists how many go with it. Example: `true`.',
    action: true,
    cli: {
      flags: '--prune-crds',
      help: 'prune CRDs the directory dropped too, with every custom resource of them (kept by default)',
      helpIn: {
        delete: "delete the deployment's CRDs too, with every custom resource of them (kept by default)",
      },
    },
    gitlab: {
      description:
        'Prune CustomResourceDefinitions the directory dropped too, with every custom resource of them; by default a dropped CRD is kept and the report says so.',
      variable: 'SPREAD_INPUT_PRUNE_CRDS',
    },
  },
  wait: {
    description:
      'Wait until the rollout is healthy (`true`/`false`). Failing pods (image pull errors, crash loops) fail the step early with their events. Example: `false`.',
    action: true,
    cli: { flags: '--no-wait', help: 'do not wait for the rollout' },
    gitlab: { description: 'Wait until the rollout is healthy.', variable: 'SPREAD_INPUT_WAIT' },
  },
  timeout: {
    description:
      "Limit of each rollout wait, as a duration (h, m, s, ms, or bare seconds): with phases or waves, of each step's wait on its own (docs/phases.md). Example: `90s`.",
    action: true,
    cli: {
      flags: '--timeout <duration>',
      help: 'limit of each rollout wait (with phases or waves: of each step), e.g. 90s, 5m',
    },
    gitlab: {
      description:
        'Limit of each rollout wait (with phases or waves: of each step), as a duration (`90s`, `5m`).',
      variable: 'SPREAD_INPUT_TIMEOUT',
    },
  },
  'force-conflicts': {
    description:
      'Take over fields owned by other field managers (kubectl edit, another tool) instead of failing (`true`/`false`). Example: `true`.',
    action: true,
    cli: { flags: '--force-conflicts', help: 'take over fields owned by other field managers' },
    gitlab: {
      description:
        "Take over fields that other field managers own (server-side apply's force); without it such a conflict fails the deploy, naming the manager.",
      variable: 'SPREAD_INPUT_FORCE_CONFLICTS',
    },
  },
  replace: {
    description:
      "Delete and recreate an object whose change the API server refuses because a field is immutable, such as a Job's template or a Service's clusterIP (`true`/`false`). Example: `true`.",
    action: true,
    cli: {
      flags: '--replace',
      help: 'delete and re-create objects whose immutable fields change (selector, Job template…)',
    },
    gitlab: {
      description:
        "Delete and re-create objects whose immutable fields change (a selector, a Job's template); without it such a change fails the plan.",
      variable: 'SPREAD_INPUT_REPLACE',
    },
  },
  adopt: {
    description:
      'Take over objects that already exist but that this deployment did not create (made by hand, by another tool, or by another spread deployment), and a deployment of the same name deployed from another folder or repository; without it they fail the plan, since a later deploy without them would delete them. Adopting also takes over the fields kubectl set, so those the directory does not declare are removed (`true`/`false`). Example: `true`.',
    action: true,
    cli: {
      flags: '--adopt',
      help: 'take over existing objects that spread did not deploy here (made by hand, another tool, or another spread deployment), a deployment of the same name from another folder, and the fields kubectl set on them: those the directory does not declare are removed',
    },
    gitlab: {
      description:
        'Take over objects that already exist but that this deployment did not create (by hand, another tool, another spread deployment), and the fields kubectl set on them: those the directory does not declare are removed. Without it they fail the plan.',
      variable: 'SPREAD_INPUT_ADOPT',
    },
  },
  'rollback-on-failure': {
    description:
      "When the rollout fails, apply the deployment's last revision whose rollout succeeded again (`true`/`false`). The step still fails. Example: `true`.",
    action: true,
    cli: {
      flags: '--rollback-on-failure',
      help: 'when the rollout fails, apply the last revision whose rollout succeeded again',
    },
    gitlab: {
      description:
        'When the rollout fails, apply the last revision whose rollout succeeded again (the job still fails).',
      variable: 'SPREAD_INPUT_ROLLBACK_ON_FAILURE',
    },
  },
  'lock-timeout': {
    description:
      'How long to wait for another deploy of the same deployment (a Lease in its namespace) to finish before failing, as a duration. Example: `10m`.',
    action: true,
    cli: {
      flags: '--lock-timeout <duration>',
      help: 'how long to wait for another deploy of the same deployment',
      helpIn: {
        rollback: 'how long to wait for another deploy of the same deployment, e.g. 90s, 5m',
        delete: 'how long to wait for another deploy of the same deployment, e.g. 90s, 5m',
      },
    },
    gitlab: {
      description:
        'How long a deploy waits for another deploy of the same deployment to end, as a duration (`30s`, `5m`).',
      variable: 'SPREAD_INPUT_LOCK_TIMEOUT',
    },
  },
  'lock-lease-duration': {
    description:
      "How long the deploy's lock (the Lease `spread.<name>`, renewed every third of it) outlives its last renewal: when a deploy crashes or its runner is killed, the next deploy takes the lock over after this, as a duration in whole seconds. Example: `2m`.",
    action: true,
    cli: {
      flags: '--lock-lease-duration <duration>',
      help: "how long the deploy's lock (a Lease) outlives its last renewal: another deploy takes over a crashed deploy's lock after this, whole seconds",
    },
    gitlab: {
      description:
        "How long the deploy's lock (a Lease, renewed every third of it) outlives its last renewal; a crashed deploy's lock is taken over after it, in whole seconds (`30s`, `2m`).",
      variable: 'SPREAD_INPUT_LOCK_LEASE_DURATION',
    },
  },
  concurrency: {
    description: 'Requests in flight at once within one apply group. Example: `16`.',
    action: true,
    cli: { flags: '--concurrency <n>', help: 'requests in flight at once within one apply group' },
  },
  'wait-load-balancer': {
    description:
      'Wait until Services of type LoadBalancer have an address, bounded by `timeout`; otherwise their node ports and address (if any) are reported and the deploy moves on (`true`/`false`). Example: `true`.',
    action: true,
    cli: {
      flags: '--wait-load-balancer',
      help: 'wait until LoadBalancer Services have an address (bounded by --timeout)',
    },
  },
  'object-annotations': {
    description:
      'Annotate each object this deploy changes with the commit, the run URL and the time (`spread.rsprd.com/commit`, `run-url`, `deployed-at`); turn off where those annotations are unwanted (`true`/`false`). Example: `false`.',
    action: true,
    cli: {
      flags: '--no-annotate',
      help: "don't annotate changed objects with the commit, run URL and time of the deploy (and remove those an earlier deploy set)",
    },
  },
  annotate: {
    description:
      'Turn manifest errors and warnings (invalid objects, deprecated APIs, Services without selectors, `:latest` images) into annotations on the files of the pull request (`true`/`false`). Example: `false`.',
    action: true,
  },
  comment: {
    description:
      'In mode `plan` on a `pull_request` event, post the plan as a pull request comment (`true`/`false`). Example: `false`.',
    action: true,
  },
  'url-from': {
    description:
      'The object whose address is the output `url`, as `KIND/NAME` (an Ingress, HTTPRoute or Service). Empty: the first Ingress with a host (`https` when its `tls` lists the host), else the first HTTPRoute with a hostname, else the first LoadBalancer Service with an address; by name within a kind. Example: `ingress/web`.',
    action: true,
    cli: {
      flags: '--url-from <KIND/NAME>',
      help: "the object whose address is the report's url, e.g. ingress/web (default: the first Ingress with a host, else HTTPRoute with a hostname, else LoadBalancer Service with an address)",
    },
    gitlab: {
      description:
        "The object whose address is the environment's URL, as `KIND/NAME` (`ingress/web`, `httproute/web`, `service/web`). Empty, the first Ingress with a host, else HTTPRoute with a hostname, else LoadBalancer Service with an address.",
      variable: 'SPREAD_INPUT_URL_FROM',
    },
  },
  deployment: {
    description:
      "Record the deploy as a GitHub Deployment of the commit (on a pull request, its head commit): `in_progress` while it runs, then `success` with the `url` and the run's page, or `failure`; older deployments of the environment become inactive, and mode `delete` marks the environment's deployments inactive. Off by default, since a job with `environment:` gets a deployment from GitHub already. Needs `deployments: write`; without it the step only warns (`true`/`false`). Example: `true`.",
    action: true,
  },
  environment: {
    description:
      "The environment to deploy to, one name for both: the one of that name the deployment's `spread.yaml` declares (its context, namespace, folder, Helm values and the cluster it must be: docs/environments.md), and the GitHub environment of the deployment (`deployment: true`). Without a declaration, only the GitHub environment's name. Empty: the declared environment whose `branches` match the branch (on a pull request, the declared preview); without a declaration, the context deployed to, else `production`. With mode `plan`, `all` plans every declared environment into one comment. Example: `staging`.",
    action: true,
    cli: {
      flags: '--environment <name>',
      help: "an environment the directory's spread.yaml declares: its context, namespace, folder, Helm values and cluster (plan: `all` plans every one)",
      helpIn: {
        promote: 'the environment promoted to, as --to',
        delete:
          'an environment the spread.yaml of the deployed folder (a NAME with a /, else the current directory) declares: its context, namespace and cluster',
        history:
          'an environment the spread.yaml of the deployed folder (a NAME with a /, else the current directory) declares: its context, namespace and cluster',
        rollback:
          'an environment the spread.yaml of the deployed folder (a NAME with a /, else the current directory) declares: its context, namespace and cluster',
        list: "an environment the current directory's spread.yaml declares: its context and namespace, and the cluster it must be",
      },
    },
    // A GitLab job's `environment:` needs a name; the Action's empty default names the context.
    gitlab: {
      description:
        "The GitLab environment's name; when the deployment's `spread.yaml` declares environments, also the one deployed to (its context, namespace, folder, Helm values and cluster).",
      default: 'production',
      job: true,
      variable: 'SPREAD_INPUT_ENVIRONMENT',
    },
  },
  cluster: {
    description:
      "With `environment` naming a fleet (an environment listing several clusters in spread.yaml): the cluster this job deploys, one leg of the fleet's matrix (docs/fleets.md); the CLI takes several, comma-separated, and deploys them in their waves. Omitted: the CLI deploys every cluster (an empty `--cluster` is an error); the Action needs one. Example: `eu-1`.",
    action: true,
    cli: {
      flags: '--cluster <names>',
      help: 'with --environment naming a fleet: only these of its clusters (comma-separated), e.g. to deploy a failed one again',
    },
    gitlab: {
      description:
        'With `environment` naming a fleet in spread.yaml: the clusters this job deploys (comma-separated), e.g. `$CLUSTER` of a `parallel:matrix` job, one leg per cluster (docs/fleets.md). Empty: every cluster of the fleet, wave by wave.',
      variable: 'SPREAD_INPUT_CLUSTER',
    },
  },
  component: {
    description:
      "With `mode: fleet-plan`: what the generated child pipeline includes for the fleet's legs and its report job: a component's address, or a file of the project ending in `.yml` or `.yaml` (an `include: local`, e.g. a copy of `templates/deploy.yml`). Default: this component at this release. Example: `$CI_SERVER_FQDN/acme/spread/deploy@1`.",
    gitlab: { variable: 'SPREAD_INPUT_COMPONENT' },
  },
  reports: {
    description:
      "With `mode: fleet-report`: the directory holding the fleet's legs' report files (each leg's output `report-file`, a `spread-report-*.json`, uploaded as an artifact named `spread-report-CLUSTER` and downloaded here with actions/download-artifact), relative to the workspace. Example: `spread-reports/`.",
    action: true,
  },
  wave: {
    description:
      "With `mode: fleet-soak`: the wave of `environment` whose clusters are soaked, by its name in spread.yaml; the legs' report files are read from `reports`. Example: `canary`.",
    action: true,
  },
  'deploy-comment': {
    description:
      "After a successful deploy, update the deployment's plan comment on its pull request to say what was deployed, where, the `url` and the revision, instead of leaving a stale plan: the event's pull request, or on `push` those the commit belongs to (the merged one), through the REST API (created when the plan posted none). Needs `pull-requests: write`; problems only warn (`true`/`false`). Example: `true`.",
    action: true,
  },
  'github-token': {
    description:
      "Token for the pull request comment, the GitHub deployment and mode `drift`'s issue; it needs `pull-requests: write`, with `deployment: true` `deployments: write`, and in mode `drift` `issues: write` (a fork's pull request gets a read-only token: the step then only warns). Default: the job's token (`github.token`). Example: the secret BOT_TOKEN (`secrets.BOT_TOKEN` in an expression).",
    // The runner evaluates the expression; the parser takes an empty input as none.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template.
    action: { default: '${{ github.token }}' },
  },
  'fail-on-drift': {
    description:
      'In mode `drift`, fail the step when the deployment drifted (after the issue is opened or updated). Off by default: the drift issue is the report, and a permanently red scheduled run gets ignored (`true`/`false`). Example: `true`.',
    action: true,
    gitlab: {
      description:
        'In mode `drift`, fail the job when a deployment drifted (after its issue is opened or updated; needs SPREAD_GITLAB_TOKEN for the issue). Off by default: the issue is the report.',
      variable: 'SPREAD_INPUT_FAIL_ON_DRIFT',
    },
  },
  heal: {
    description:
      "In mode `drift`, when the deployment drifted, deploy its last good revision again (from the deployment's history, not the branch head; the rollback path, taking back the fields other managers changed) and say so in the issue (`true`/`false`). Example: `true`.",
    action: true,
    gitlab: {
      description:
        "In mode `drift`, when a deployment drifted, deploy its last good revision again (from the deployment's history, not the branch head; the rollback path, taking back the fields other managers changed), compare again, and say so in the issue (closed when the cluster matches).",
      variable: 'SPREAD_INPUT_HEAL',
    },
  },
  target: { description: 'Dockerfile stage to build', cli: { flags: '--target <stage>' } },
  output: {
    description: 'report format on stdout',
    cli: {
      flags: '-o, --output <format>',
      helpIn: {
        history: 'output format on stdout',
        rollback: 'output format on stdout',
        list: 'output format on stdout',
        delete: 'output format on stdout',
      },
    },
  },
  'allow-empty': {
    description: 'let an input with no objects prune every object of the deployment',
    cli: { flags: '--allow-empty' },
  },
  'all-environments': {
    description:
      "compare every environment the directory's spread.yaml declares, each in its own context and namespace, and report each one's drift (as --environment all; -o json: { environments: [...] })",
    cli: { flags: '--all-environments' },
  },
  against: {
    description:
      "with --all-environments, what each environment's drift compares the cluster with: directory (does the cluster match this checkout) or revision (the deployment's last deployed revision from its history, as the drift modes do: commits not deployed yet are not drift; the directory when there is no revision)",
    cli: { flags: '--against <what>' },
  },
  'show-secrets': {
    description: 'print Secret values instead of <redacted>',
    cli: { flags: '--show-secrets' },
  },
  verbose: {
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
  'environment-url': {
    description:
      "The environment's URL (GitLab reads it from the dotenv report's SPREAD_ENVIRONMENT_URL). Empty, where the deployed application answers: its Ingress, HTTPRoute or LoadBalancer Service (see `url-from`), else none.",
    gitlab: { variable: 'SPREAD_INPUT_ENVIRONMENT_URL' },
  },
  'environment-action': {
    description:
      'The environment action; use `prepare` with mode `plan` so a plan is no deployment, and `stop` with mode `delete` for an `on_stop` job.',
    gitlab: { job: true },
  },
  'resource-group': {
    description: "The job's resource group, so two deploys of one environment never overlap.",
    gitlab: { job: true },
  },
  image: {
    description:
      "The job's image. The default is spread's image of this release; to run spread from `package`, name an image with Node 24 (and npm for a package name), e.g. `node:24-slim`.",
    gitlab: { job: true },
  },
  package: {
    description:
      "Where spread comes from when it is not the image's own: the npm package `@redspread/spread` (or another package that provides it) at exactly `version`, or a path to a checkout with dist/ built (the self-test). Empty, the image's spread (/opt/spread, SPREAD_HOME).",
    gitlab: { variable: 'SPREAD_INPUT_PACKAGE' },
  },
  version: {
    description: 'Exact version of the npm package `package` (required with a package name).',
    gitlab: { variable: 'SPREAD_INPUT_VERSION' },
  },
  'mr-note': {
    description:
      'In a merge request pipeline in mode `plan`, post the plan as one note (needs SPREAD_GITLAB_TOKEN).',
    gitlab: { variable: 'SPREAD_MR_NOTE' },
  },
  services: {
    description: 'Services of the job, e.g. `[{name: "docker:27-dind", alias: docker}]` to build images.',
    gitlab: { default: [], job: true },
  },
  'docker-host': {
    description:
      'DOCKER_HOST of the Docker engine that builds images, e.g. `tcp://docker:2375`. Empty, the default.',
    gitlab: { variable: 'SPREAD_INPUT_DOCKER_HOST' },
  },
  rules: {
    description: 'When the job runs (GitLab `rules`). Default, on every pipeline.',
    gitlab: { default: [{ when: 'on_success' }], job: true },
  },
} as const satisfies { readonly [K in SettingKey]: SettingTexts };
