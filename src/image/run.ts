// What every image of one image stage run shares (registry clients and credentials per host, buildx's
// environment), made once instead of per image.
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../base/logger.js';
import type { BuildxRunner } from './buildx.js';
import { type RegistryCredential, registryHost, resolveCredential } from './credentials.js';
import type { ImageOptions } from './options.js';
import { RegistryClient } from './registry.js';

/**
 * What every image's work shares within one run of {@link prepareImages}: registry clients and
 * credentials made once per host, and how buildx runs (its environment), made once.
 */
export interface Run {
  readonly options: ImageOptions;
  readonly logger: Logger;
  readonly push: boolean;
  readonly build: boolean;
  readonly configDir: string;
  registryFor(host: string): Promise<RegistryClient>;
  credentialFor(host: string): Promise<RegistryCredential | undefined>;
  buildx(): Promise<BuildxRunner>;
}

export function createRun(options: ImageOptions, logger: Logger): Run {
  const configDir = options.dockerConfigDir ?? path.join(os.homedir(), '.docker');
  const credentials = new Map<string, Promise<RegistryCredential | undefined>>();
  const registries = new Map<string, Promise<RegistryClient>>();
  let buildx: Promise<BuildxRunner> | undefined;
  const credentialFor = (host: string) => {
    if (!credentials.has(host)) credentials.set(host, resolveCredential(configDir, host));
    return credentials.get(host)!;
  };
  const makeRegistry = async (host: string) =>
    new RegistryClient(host, {
      credential: await credentialFor(host),
      configFile: path.join(configDir, 'config.json'),
      insecure: options.insecureRegistries?.some((h) => registryHost(h) === host) || undefined,
      signal: options.signal,
    });
  return {
    options,
    logger,
    push: options.push ?? true,
    build: options.build ?? true,
    configDir,
    credentialFor,
    registryFor: (host) => {
      if (!registries.has(host)) registries.set(host, makeRegistry(host));
      return registries.get(host)!;
    },
    buildx: () =>
      (buildx ??= (async () => {
        const base = options.buildx?.env ?? process.env;
        const env: NodeJS.ProcessEnv = { ...base, DOCKER_CONFIG: configDir };
        if (options.docker) env.DOCKER_HOST = options.docker;
        // buildx is not asked first (two more docker CLI starts per run): a build that fails before
        // any step is diagnosed by checkBuildx (buildxBuild), so a missing plugin still says what to install.
        logger.debug(`buildx builder: ${options.buildx?.builder ?? "(buildx's current)"}`);
        return { ...options.buildx, env, signal: options.signal };
      })()),
  };
}
