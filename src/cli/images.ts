// The image stage's options of the CLI's commands (deploy, plan, build, status), from their flags
// and the environment: one place, so that status resolves `&` images exactly as deploy builds them.
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { ImageOptions } from '../image/index.js';
import type { CliFlags, SecretFlag } from './options.js';

/** The build secrets of `--secret id=ID,env=VAR` flags, each value from its environment variable. */
function secretsOf(flags: readonly SecretFlag[], env: NodeJS.ProcessEnv) {
  return flags.map((s) => {
    const value = env[s.env];
    if (value === undefined)
      throw new InvalidArgumentError(`--secret id=${s.id}: the environment variable ${s.env} is not set`);
    return { id: s.id, value };
  });
}

/**
 * The flags of the image stage, as commander gives them (typed by the settings table): those every
 * command with images takes (status's), and those only some take (deploy's), absent elsewhere.
 */
export type ImageFlags = Pick<
  CliFlags<'status'>,
  'registry' | 'tag' | 'buildArg' | 'target' | 'platform' | 'attestations'
> &
  Partial<Pick<CliFlags<'deploy'>, 'build' | 'push' | 'cache' | 'secret' | 'builder'>>;

/**
 * The image stage's options from flags and the environment: DOCKER_HOST, DOCKER_CONFIG (else
 * ~/.docker), SPREAD_REGISTRY, and `commit` (the CI context's: GITHUB_SHA / CI_COMMIT_SHA / git) as
 * the second tag of images built without `--tag`.
 */
export function imageStageOptions(
  flags: ImageFlags,
  commit: string | undefined,
  env: NodeJS.ProcessEnv,
): Omit<ImageOptions, 'root' | 'signal'> {
  return {
    ...(flags.cache ? { cache: flags.cache } : {}),
    ...(flags.platform?.length ? { platforms: flags.platform } : {}),
    attestations: flags.attestations === 'provenance' ? 'provenance' : flags.attestations === 'true',
    secrets: secretsOf(flags.secret ?? [], env),
    buildx: { ...(flags.builder ? { builder: flags.builder } : {}), env },
    registry: flags.registry ?? env.SPREAD_REGISTRY,
    tag: flags.tag || undefined,
    // A second tag only: images are deployed by their content-addressed tag (ImageOptions.commit).
    commit: flags.tag || !commit ? undefined : commit.slice(0, 12),
    buildArgs: flags.buildArg,
    target: flags.target,
    build: flags.build,
    push: flags.push,
    docker: env.DOCKER_HOST,
    // An empty DOCKER_CONFIG counts as unset, as for the docker CLI.
    dockerConfigDir: env.DOCKER_CONFIG || path.join(env.HOME ?? '', '.docker'),
  };
}
