// A minimal client of the OCI Distribution API with Docker's token flow: enough to read a tag's digest
// and its image's labels, which is how spread knows an image need not be built again.
import { createHash } from 'node:crypto';
import type { RegistryCredential } from './credentials.js';
import { registryHost } from './credentials.js';
import { type HttpResponse, httpRequest } from './http.js';

/**
 * A minimal client of the OCI Distribution API (github.com/opencontainers/distribution-spec, "Pulling
 * manifests", "Pulling blobs"), enough to read a manifest's digest and its image config. Auth follows the
 * Docker token flow (distribution/distribution docs "Token Authentication Specification"): a 401 with
 * `WWW-Authenticate: Basic` is answered with the credential; `Bearer realm=…,service=…,scope=…` with a
 * token fetched from the realm.
 */

/** The manifest media types asked for: Docker v2 and OCI, single images and indexes. */
export const MANIFEST_ACCEPT = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');

const INDEX_TYPES = new Set([
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.index.v1+json',
]);

/** The registry refused the credential, or wants one and there is none. */
export class RegistryAuthError extends Error {
  readonly registry: string;
  constructor(registry: string, detail: string) {
    super(`authentication to ${registry} failed: ${detail}`);
    this.name = 'RegistryAuthError';
    this.registry = registry;
  }
}

/** Any other failure talking to a registry. */
export class RegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryError';
  }
}

/** A manifest as the registry serves it. */
export interface Manifest {
  /** `Docker-Content-Digest`, else the sha256 of the bytes served. */
  readonly digest: string;
  readonly mediaType: string;
  /** The decoded JSON. */
  readonly body: {
    mediaType?: string;
    config?: { digest?: string; mediaType?: string };
    manifests?: { digest?: string; platform?: unknown; annotations?: Record<string, string> }[];
  };
}

/** Options of {@link RegistryClient}. */
export interface RegistryClientOptions {
  readonly credential?: RegistryCredential | undefined;
  /** The Docker config the credential was looked up in (`~/.docker/config.json`), named in errors. */
  readonly configFile?: string | undefined;
  /**
   * Allow plain HTTP when HTTPS cannot connect, as Docker does for insecure registries. On by default
   * for `localhost`, `127.0.0.0/8` and `::1` (Docker's default insecure registries).
   */
  readonly insecure?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Timeout of one request, in milliseconds (default 30 000). */
  readonly timeoutMs?: number | undefined;
}

/**
 * What a registry said in a 401 or 403, as the docker CLI prints it: `unauthorized: authentication
 * required`, `denied: requested access to the resource is denied` (the distribution spec's error
 * body, `{"errors":[{"code","message"}]}`); a token service's `details`; undefined when it said
 * nothing readable. The body is read in full (a few hundred bytes).
 */
export async function registrySaid(res: HttpResponse): Promise<string | undefined> {
  try {
    const body = (await res.json()) as {
      errors?: { code?: string; message?: string }[];
      details?: string;
    };
    const first = body.errors?.[0];
    if (first?.code) return `${first.code.toLowerCase()}: ${first.message ?? ''}`.trim();
    return typeof body.details === 'string' ? body.details : undefined;
  } catch {
    return undefined;
  }
}

/** True for hosts Docker treats as insecure registries by default (loopback). */
export function isLoopbackRegistry(host: string): boolean {
  const name = host.replace(/:\d+$/, '');
  return name === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(name) || name === '[::1]';
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses `WWW-Authenticate: Bearer realm="…",service="…",scope="…"` (RFC 7235). */
export function parseChallenge(header: string): Challenge | undefined {
  const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  for (let p = re.exec(m[2]!); p; p = re.exec(m[2]!)) {
    params[p[1]!.toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : (p[3] ?? '');
  }
  return { scheme: m[1]!.toLowerCase(), params };
}

/** A client of one registry host. */
export class RegistryClient {
  /** The host as given (`localhost:5000`, `docker.io`). */
  readonly host: string;
  private readonly apiHost: string;
  private readonly options: RegistryClientOptions;
  private scheme: 'https' | 'http' | undefined;
  private readonly authorization = new Map<string, string>();

  constructor(host: string, options: RegistryClientOptions = {}) {
    this.host = registryHost(host);
    this.apiHost = this.host === 'docker.io' ? 'registry-1.docker.io' : this.host;
    this.options = options;
  }

  /**
   * The manifest of `repository` (a path such as `team-a/web`) at `reference` (a tag or digest);
   * undefined when the registry has none (404).
   *
   * @throws RegistryAuthError on 401/403, RegistryError on other failures.
   */
  async manifest(repository: string, reference: string): Promise<Manifest | undefined> {
    const res = await this.request(`/v2/${repository}/manifests/${reference}`, repository, {
      accept: MANIFEST_ACCEPT,
    });
    if (res.status === 404) {
      res.discard();
      return undefined;
    }
    const bytes = await res.bytes();
    if (!res.ok) throw new RegistryError(`${this.describe(repository, reference)}: HTTP ${res.status}`);
    const digest =
      res.header('docker-content-digest') ?? `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    let body: Manifest['body'];
    try {
      body = JSON.parse(bytes.toString('utf8')) as Manifest['body'];
    } catch {
      throw new RegistryError(`${this.describe(repository, reference)}: the manifest is not JSON`);
    }
    const mediaType = body.mediaType ?? res.header('content-type') ?? '';
    return { digest, mediaType, body };
  }

  /**
   * The labels of the image config a manifest points to (`config.Labels`); for an index (several
   * platforms), those of its first image manifest (a multi-platform build labels every platform
   * alike). Undefined for a manifest without a config.
   */
  async imageLabels(repository: string, manifest: Manifest): Promise<Record<string, string> | undefined> {
    if (INDEX_TYPES.has(manifest.mediaType) || manifest.body.manifests) {
      const first = manifest.body.manifests?.find((m) => !m.annotations?.['vnd.docker.reference.type']);
      const child = first?.digest ? await this.manifest(repository, first.digest) : undefined;
      return child && !child.body.manifests ? this.imageLabels(repository, child) : undefined;
    }
    const configDigest = manifest.body.config?.digest;
    if (!configDigest) return undefined;
    const res = await this.request(`/v2/${repository}/blobs/${configDigest}`, repository, {});
    if (!res.ok) {
      res.discard();
      throw new RegistryError(`${this.describe(repository, configDigest)}: HTTP ${res.status}`);
    }
    const config = (await res.json()) as { config?: { Labels?: Record<string, string> | null } };
    return config.config?.Labels ?? {};
  }

  private describe(repository: string, reference: string): string {
    return `${this.host}/${repository}${reference.includes(':') ? '@' : ':'}${reference}`;
  }

  private async request(
    pathname: string,
    repository: string,
    headers: Record<string, string>,
  ): Promise<HttpResponse> {
    const scope = `repository:${repository}:pull`;
    let res = await this.get(pathname, headers, this.authorization.get(scope));
    if (res.status !== 401) return this.checkDenied(res, repository);
    res.discard();
    const challenge = parseChallenge(res.header('www-authenticate') ?? '');
    const authorization = await this.authorize(challenge, scope);
    this.authorization.set(scope, authorization);
    res = await this.get(pathname, headers, authorization);
    if (res.status === 401)
      throw this.authError(
        repository,
        'the registry refused the credentials (HTTP 401',
        await registrySaid(res),
      );
    return this.checkDenied(res, repository);
  }

  private async checkDenied(res: HttpResponse, repository: string): Promise<HttpResponse> {
    if (res.status !== 403) return res;
    throw this.authError(repository, 'access denied (HTTP 403', await registrySaid(res));
  }

  /**
   * A RegistryAuthError that says which image, what the registry said (`unauthorized: …`, `denied:
   * …`, its own words), where the credential was read (which Docker config, which entry or helper)
   * and what to do: `docker login` to this registry. `detail` is an open parenthesis the registry's
   * words close.
   */
  private authError(repository: string, detail: string, said?: string): RegistryAuthError {
    const credential = this.options.credential;
    const config = this.options.configFile ?? 'the Docker config';
    const read = credential
      ? `the credentials are ${config}'s ${credential.from} entry for ${this.host}`
      : `${config} holds no credentials for ${this.host}`;
    return new RegistryAuthError(
      this.host,
      `${detail}${said ? `: ${said}` : ''}) for ${this.host}/${repository}; ${read}: log in with \`docker login ${this.host}\` (docker/login-action in a workflow) as an account that may push to ${repository}, or point DOCKER_CONFIG at the directory whose config.json holds such credentials`,
    );
  }

  private async authorize(challenge: Challenge | undefined, scope: string): Promise<string> {
    const credential = this.options.credential;
    const repository = scope.split(':')[1] ?? '';
    if (challenge?.scheme === 'basic') {
      if (credential?.identityToken !== undefined && credential.username === undefined)
        throw this.authError(
          repository,
          `the registry asks for a user and password, and the Docker config's credential for it is an identity token (from ${credential.from}), which only a Bearer token service takes (HTTP 401`,
        );
      if (credential?.username === undefined)
        throw this.authError(repository, 'the registry asks for a user and password (HTTP 401');
      return `Basic ${Buffer.from(`${credential.username}:${credential.password ?? ''}`).toString('base64')}`;
    }
    if (challenge?.scheme === 'bearer' && challenge.params.realm) {
      return `Bearer ${await this.token(challenge.params, scope)}`;
    }
    throw this.authError(
      repository,
      'the registry answered 401 without a Basic or Bearer challenge (HTTP 401',
    );
  }

  private async token(params: Record<string, string>, scope: string): Promise<string> {
    const credential = this.options.credential;
    const realm = new URL(params.realm!);
    const signal = this.signal();
    let res: HttpResponse;
    if (credential?.identityToken !== undefined) {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: credential.identityToken,
        client_id: 'spread',
        scope: params.scope ?? scope,
        ...(params.service ? { service: params.service } : {}),
      });
      res = await httpRequest(realm, { method: 'POST', body: form, signal });
    } else {
      if (params.service) realm.searchParams.set('service', params.service);
      realm.searchParams.set('scope', params.scope ?? scope);
      const headers: Record<string, string> = {};
      if (credential?.username !== undefined) {
        headers.authorization = `Basic ${Buffer.from(`${credential.username}:${credential.password ?? ''}`).toString('base64')}`;
      }
      res = await httpRequest(realm, { headers, signal });
    }
    if (res.status === 401 || res.status === 403)
      throw this.authError(
        (params.scope ?? scope).split(':')[1] ?? '',
        `the token service ${realm.host} refused the credentials (HTTP ${res.status}`,
        await registrySaid(res),
      );
    if (!res.ok) {
      res.discard();
      throw new RegistryError(`token service ${realm.host} for ${this.host}: HTTP ${res.status}`);
    }
    const body = (await res.json()) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (!token) throw new RegistryError(`token service ${realm.host} for ${this.host} returned no token`);
    return token;
  }

  private signal(): AbortSignal {
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
    return this.options.signal ? AbortSignal.any([this.options.signal, timeout]) : timeout;
  }

  private async get(
    pathname: string,
    headers: Record<string, string>,
    authorization?: string,
  ): Promise<HttpResponse> {
    const all = authorization ? { ...headers, authorization } : headers;
    const loopback = isLoopbackRegistry(this.host);
    const insecure = this.options.insecure ?? loopback;
    // Loopback traffic stays on this machine, so plain HTTP goes first there (containerd's resolver
    // uses it alone: WithPlainHTTP(MatchLocalhost)), which also spares loading TLS on the path of every
    // build (bench/RESULTS.md, "Images"); other insecure hosts try HTTPS first, as Docker does.
    const schemes: ('https' | 'http')[] = this.scheme
      ? [this.scheme]
      : loopback && insecure
        ? ['http', 'https']
        : insecure
          ? ['https', 'http']
          : ['https'];
    let lastError: unknown;
    let refused: HttpResponse | undefined;
    for (const scheme of schemes) {
      try {
        const res = await httpRequest(`${scheme}://${this.apiHost}${pathname}`, {
          headers: all,
          signal: this.signal(),
        });
        // A TLS port answers plain HTTP with 400 ("Client sent an HTTP request to an HTTPS server").
        if (scheme === 'http' && !this.scheme && schemes[0] === 'http' && res.status === 400) {
          refused = res;
          continue;
        }
        refused?.discard();
        this.scheme = scheme;
        return res;
      } catch (e) {
        if (this.options.signal?.aborted) throw e;
        lastError = e;
      }
    }
    // The port speaks TLS and refused the handshake (an untrusted certificate): that is the error to
    // report, not the 400 of the plain-HTTP try. A port that speaks no TLS gives back its 400.
    const code = String((lastError as NodeJS.ErrnoException | undefined)?.code ?? '');
    if (refused && (lastError === undefined || /WRONG_VERSION_NUMBER|EPROTO|ECONNRESET/.test(code))) {
      this.scheme = 'http';
      return refused;
    }
    refused?.discard();
    const cause = lastError as Error & { cause?: Error };
    throw new RegistryError(`cannot reach registry ${this.host}: ${cause.cause?.message ?? cause.message}`);
  }
}
