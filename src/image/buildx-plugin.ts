import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the docker CLI looks for plugins on Linux after the user's and config.json's directories. */
const SYSTEM_PLUGIN_DIRS = [
  '/usr/local/lib/docker/cli-plugins',
  '/usr/local/libexec/docker/cli-plugins',
  '/usr/lib/docker/cli-plugins',
  '/usr/libexec/docker/cli-plugins',
];

/**
 * The `docker-buildx` binary the docker CLI would run for `docker buildx`, searched as the CLI searches
 * (cli/cli-plugins/manager): `$DOCKER_CONFIG/cli-plugins` (else `~/.docker/cli-plugins`), then
 * config.json's `cliPluginsExtraDirs`, then the system directories. Undefined when there is none, or
 * `env` names no HOME and no DOCKER_CONFIG.
 */
export function findBuildxPlugin(env: NodeJS.ProcessEnv): string | undefined {
  const config = env.DOCKER_CONFIG || (env.HOME ? path.join(env.HOME, '.docker') : undefined);
  const dirs: string[] = [];
  if (config) {
    dirs.push(path.join(config, 'cli-plugins'));
    try {
      const extra = (
        JSON.parse(readFileSync(path.join(config, 'config.json'), 'utf8')) as Record<string, unknown>
      ).cliPluginsExtraDirs;
      if (Array.isArray(extra)) dirs.push(...extra.filter((d): d is string => typeof d === 'string'));
    } catch {
      // No config.json, or one the docker CLI would also fail on: the CLI's own run says so.
    }
  }
  dirs.push(...SYSTEM_PLUGIN_DIRS);
  for (const dir of dirs) {
    const file = path.join(dir, 'docker-buildx');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not there: the next directory.
    }
  }
  return undefined;
}
