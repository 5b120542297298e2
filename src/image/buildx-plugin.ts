// Finds the `docker-buildx` plugin as the docker CLI would, so that a missing or broken plugin is
// reported with what to install before any build starts.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the docker CLI looks for plugins on Linux after config.json's and the user's directories. */
const SYSTEM_PLUGIN_DIRS = [
  '/usr/local/lib/docker/cli-plugins',
  '/usr/local/libexec/docker/cli-plugins',
  '/usr/lib/docker/cli-plugins',
  '/usr/libexec/docker/cli-plugins',
];

/**
 * The `docker-buildx` binary the docker CLI would run for `docker buildx`, searched as the CLI
 * searches (cli/cli-plugins/manager `getPluginDirs`): config.json's `cliPluginsExtraDirs`, then
 * `$DOCKER_CONFIG/cli-plugins` (else `~/.docker/cli-plugins`; an empty DOCKER_CONFIG counts as
 * unset), then the system directories. The first file found decides, as for the CLI: undefined when
 * it is not executable (the CLI's own run then says why), or when there is none.
 */
export function findBuildxPlugin(env: NodeJS.ProcessEnv): string | undefined {
  const config = env.DOCKER_CONFIG || (env.HOME ? path.join(env.HOME, '.docker') : undefined);
  const dirs: string[] = [];
  if (config) {
    try {
      const extra = (
        JSON.parse(readFileSync(path.join(config, 'config.json'), 'utf8')) as Record<string, unknown>
      ).cliPluginsExtraDirs;
      if (Array.isArray(extra)) dirs.push(...extra.filter((d): d is string => typeof d === 'string'));
    } catch {
      // No config.json, or one the docker CLI would also fail on: the CLI's own run says so.
    }
    dirs.push(path.join(config, 'cli-plugins'));
  }
  dirs.push(...SYSTEM_PLUGIN_DIRS);
  for (const dir of dirs) {
    const file = path.join(dir, 'docker-buildx');
    if (!existsSync(file)) continue;
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The command for `buildx ARGS`: the plugin binary itself when it can be found (buildx runs standalone
 * then, as `docker-buildx ARGS`, without the docker CLI's start and its plugin-metadata call, timed in
 * bench/RESULTS.md, "Images"), else `docker buildx ARGS`. An explicit docker CLI (`docker`) is always
 * used as given.
 */
export function buildxCommand(
  docker: string | undefined,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
): { command: string; args: readonly string[] } {
  const plugin = docker === undefined && args[0] === 'buildx' ? findBuildxPlugin(env) : undefined;
  return plugin ? { command: plugin, args: args.slice(1) } : { command: docker ?? 'docker', args };
}

/**
 * The environment of buildx run as the plugin binary: without the variables by which the docker CLI
 * tells a plugin it started it (left over when spread itself runs under a plugin), with which buildx
 * would parse `build …` as `docker-buildx buildx build …` and fail.
 */
export function standaloneEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const {
    DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND: _command,
    DOCKER_CLI_PLUGIN_SOCKET: _socket,
    ...rest
  } = env;
  return rest;
}
