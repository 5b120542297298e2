// A kubeconfig user's `exec` credential plugin (aws eks get-token, kubelogin, gke-gcloud-auth-plugin),
// run as client-go's exec authenticator runs it (k8s.io/client-go plugin/pkg/client/auth/exec/exec.go):
// once for every request that needs it, cached until its expirationTimestamp, run again after a 401,
// with KUBERNETES_EXEC_INFO, the kubeconfig's env and args, and its installHint when it is missing.
import { spawn } from 'node:child_process';

/** The `user.exec` of a kubeconfig (clientcmd's ExecConfig), as written in the file. */
export interface ExecConfig {
  readonly apiVersion?: string;
  readonly command?: string;
  readonly args?: readonly string[] | null;
  readonly env?: readonly { readonly name: string; readonly value: string }[] | null;
  readonly installHint?: string;
  readonly provideClusterInfo?: boolean;
  readonly interactiveMode?: string;
}

/** The cluster as KUBERNETES_EXEC_INFO gives it with `provideClusterInfo` (client.authentication.k8s.io Cluster). */
export interface ExecCluster {
  readonly server: string;
  readonly 'tls-server-name'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the PEM bundle (the JSON form of client-go's []byte). */
  readonly 'certificate-authority-data'?: string;
  readonly 'proxy-url'?: string;
  /** The cluster's `client.authentication.k8s.io/exec` extension, as written. */
  readonly config?: unknown;
}

/** What a plugin run gave: a bearer token and/or a client certificate (PEM), and when it expires. */
export interface ExecCredential {
  readonly token?: string;
  readonly cert?: string;
  readonly key?: string;
  /** Epoch milliseconds of `expirationTimestamp`; undefined when the plugin gave none (then kept for the run). */
  readonly expiresAt?: number;
}

/** The plugin could not be run, failed, or printed something that is not a valid ExecCredential. */
export class ExecPluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExecPluginError';
  }
}

/** What the authenticator reads from and writes to; replaced in tests. */
export interface ExecIo {
  /** Whether standard input is a terminal (client-go: term.IsTerminal(os.Stdin)). */
  readonly isTerminal: () => boolean;
  /** The environment the plugin inherits (client-go: os.Environ()). */
  readonly environ: () => NodeJS.ProcessEnv;
  /** Where the plugin's standard error goes, as kubectl lets it through. */
  readonly stderr: NodeJS.WritableStream;
  readonly now: () => number;
}

const processIo: ExecIo = {
  isTerminal: () => process.stdin.isTTY === true,
  environ: () => process.env,
  stderr: process.stderr,
  now: () => Date.now(),
};

/** The ExecCredential versions client-go accepts (v1alpha1 was removed in Kubernetes 1.24). */
const API_VERSIONS = ['client.authentication.k8s.io/v1beta1', 'client.authentication.k8s.io/v1'];

/** client-go's words after "executable … not found" (installHintVerboseHelp). */
const INSTALL_HELP =
  'It looks like you are trying to use a client-go credential plugin that is not installed.\n\nTo learn more about this feature, consult the documentation available at:\n      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins';

/**
 * One exec plugin of one cluster. Every request of the process shares its credential: callers that
 * ask while the plugin runs wait for that run (client-go holds a mutex around it), so a deploy starts
 * the plugin once, not once per request in flight.
 */
export class ExecAuthenticator {
  private cached: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;

  constructor(
    private readonly config: ExecConfig,
    private readonly cluster: ExecCluster,
    /** `user "u" of context "c"`, for messages. */
    private readonly who: string,
    private readonly io: ExecIo = processIo,
  ) {}

  /** The plugin's command as the kubeconfig names it (resolved against its directory when relative). */
  get command(): string {
    return this.config.command ?? '';
  }

  /**
   * The credential to send: the cached one until its `expirationTimestamp` has passed (client-go's
   * rule: expired when now is after it), else a new run of the plugin.
   * @throws ExecPluginError
   */
  credential(): Promise<ExecCredential> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || this.io.now() <= c.expiresAt)) return Promise.resolve(c);
    return this.run();
  }

  /**
   * After a 401 answered to a request that carried `used`: runs the plugin again, unless another
   * request already did since (client-go's maybeRefreshCreds), and answers the credential to retry with.
   * @throws ExecPluginError
   */
  refresh(used: ExecCredential): Promise<ExecCredential> {
    if (this.running) return this.running;
    if (this.cached && this.cached !== used) return Promise.resolve(this.cached);
    return this.run();
  }

  private run(): Promise<ExecCredential> {
    this.running ??= this.execute().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async execute(): Promise<ExecCredential> {
    const interactive = this.interactive();
    const info = {
      apiVersion: this.config.apiVersion,
      kind: 'ExecCredential',
      spec: { ...(this.config.provideClusterInfo ? { cluster: this.cluster } : {}), interactive },
    };
    const env: NodeJS.ProcessEnv = { ...this.io.environ() };
    for (const e of this.config.env ?? []) env[e.name] = e.value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify(info);
    const stdout = await this.spawn(env, interactive);
    const credential = parseCredential(stdout, this.config.apiVersion!, this.prefix());
    this.cached = credential;
    return credential;
  }

  /** interactiveMode as client-go reads it (isInteractive); v1beta1 defaults to IfAvailable. */
  private interactive(): boolean {
    const mode = this.config.interactiveMode;
    if (mode === 'Never') return false;
    if (mode === 'IfAvailable') return this.io.isTerminal();
    if (mode === 'Always') {
      if (!this.io.isTerminal())
        throw new ExecPluginError(
          `${this.prefix()} cannot support interactive mode: standard input is not a terminal (interactiveMode: Always; in CI, use a plugin that logs in without a prompt)`,
        );
      return true;
    }
    throw new ExecPluginError(`${this.prefix()}: unknown interactiveMode: "${mode}"`);
  }

  /** Runs the command; answers its standard output. Its standard error goes to io.stderr, as kubectl's does. */
  private spawn(env: NodeJS.ProcessEnv, interactive: boolean): Promise<string> {
    const command = this.command;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...(this.config.args ?? [])], {
        env,
        stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      let tail = '';
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => {
        this.io.stderr.write(c);
        tail = (tail + c.toString('utf8')).slice(-2000);
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') reject(new ExecPluginError(this.notFound()));
        else reject(new ExecPluginError(`${this.prefix()}: exec: ${error.message}`));
      });
      child.on('close', (code, signal) => {
        if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
        const last = tail.trim().split('\n').at(-1)?.trim();
        const how = signal ? `was ended by ${signal}` : `failed with exit code ${code}`;
        reject(
          new ExecPluginError(
            `${this.prefix()}: exec: executable ${command} ${how}${last ? `: ${last}` : ''}`,
          ),
        );
      });
    });
  }

  /** client-go's wrapCmdRunErrorLocked for a missing binary: its help, then the kubeconfig's installHint. */
  private notFound(): string {
    const hint = this.config.installHint?.trim();
    return `${this.prefix()}: exec: executable ${this.command} not found\n\n${INSTALL_HELP}${hint ? `\n\n${hint}` : ''}`;
  }

  private prefix(): string {
    return `the exec credential plugin of ${this.who}`;
  }
}

/**
 * Checks a kubeconfig user's `exec` as clientcmd validates it (validation.go): a command, a supported
 * apiVersion, env names, interactiveMode (required for v1, IfAvailable by default for v1beta1). Answers
 * the config with interactiveMode defaulted.
 * @throws ExecPluginError naming the user
 */
export function validExecConfig(config: ExecConfig, who: string): ExecConfig {
  const problems: string[] = [];
  if (!config.command) problems.push('command must be specified');
  if (!config.apiVersion) problems.push('apiVersion must be specified');
  else if (!API_VERSIONS.includes(config.apiVersion))
    problems.push(`invalid apiVersion "${config.apiVersion}" (use ${API_VERSIONS.join(' or ')})`);
  for (const e of config.env ?? []) if (!e?.name) problems.push('env variable name must be specified');
  let mode = config.interactiveMode;
  if (!mode && config.apiVersion?.endsWith('/v1beta1')) mode = 'IfAvailable';
  if (!mode) problems.push('interactiveMode must be specified (Never, IfAvailable or Always)');
  else if (!['Never', 'IfAvailable', 'Always'].includes(mode))
    problems.push(`invalid interactiveMode "${mode}" (Never, IfAvailable or Always)`);
  if (problems.length > 0)
    throw new ExecPluginError(`the exec credential plugin of ${who}: ${problems.join('; ')}`);
  return { ...config, interactiveMode: mode };
}

/** The plugin's standard output as a credential, checked as client-go checks it (refreshCredsLocked). */
function parseCredential(stdout: string, apiVersion: string, prefix: string): ExecCredential {
  let parsed: {
    apiVersion?: string;
    kind?: string;
    status?: {
      token?: string;
      clientCertificateData?: string;
      clientKeyData?: string;
      expirationTimestamp?: string;
    };
  };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new ExecPluginError(`${prefix}: decoding stdout: not an ExecCredential in JSON`);
  }
  if (parsed?.kind !== 'ExecCredential')
    throw new ExecPluginError(`${prefix}: decoding stdout: kind is "${parsed?.kind}", not ExecCredential`);
  if (parsed.apiVersion !== apiVersion)
    throw new ExecPluginError(
      `${prefix}: exec plugin is configured to use API version ${apiVersion}, plugin returned version ${parsed.apiVersion}`,
    );
  const s = parsed.status;
  if (!s) throw new ExecPluginError(`${prefix}: exec plugin didn't return a status field`);
  if (!s.token && !s.clientCertificateData && !s.clientKeyData)
    throw new ExecPluginError(`${prefix}: exec plugin didn't return a token or cert/key pair`);
  if (!s.clientCertificateData !== !s.clientKeyData)
    throw new ExecPluginError(`${prefix}: exec plugin returned only certificate or key, not both`);
  let expiresAt: number | undefined;
  if (s.expirationTimestamp) {
    expiresAt = Date.parse(s.expirationTimestamp);
    if (!Number.isFinite(expiresAt))
      throw new ExecPluginError(`${prefix}: invalid expirationTimestamp "${s.expirationTimestamp}"`);
  }
  return {
    ...(s.token ? { token: s.token } : {}),
    ...(s.clientCertificateData ? { cert: s.clientCertificateData, key: s.clientKeyData } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

/**
 * The authenticators of the process, one per plugin and cluster (client-go's globalCache, keyed the
 * same way): a kubeconfig loaded twice in one run (a deploy, then its status) runs its plugin once.
 */
const authenticators = new Map<string, ExecAuthenticator>();

/** The process's authenticator of `config` for `cluster`, made on first use. */
export function execAuthenticator(config: ExecConfig, cluster: ExecCluster, who: string): ExecAuthenticator {
  const key = JSON.stringify([config, cluster]);
  let found = authenticators.get(key);
  if (!found) {
    found = new ExecAuthenticator(config, cluster, who);
    authenticators.set(key, found);
  }
  return found;
}
