// The credentials of the kubeconfig's current user on each request, for every caller of the cluster
// layer (KubeClient's requests, watches, the Lease renewer, pod logs): client-node fills in TLS,
// proxies, tokens and auth-providers; exec plugins run through exec-credential.ts instead, as
// client-go runs them, and a 401 runs the plugin again. Also the words of a 401: whose credential.
import { readFileSync } from 'node:fs';
import type https from 'node:https';
import path from 'node:path';
import { type Cluster, KubeConfig, type User } from '@kubernetes/client-node';
import {
  type ExecAuthenticator,
  type ExecCluster,
  type ExecConfig,
  type ExecCredential,
  execAuthenticator,
  validExecConfig,
} from './exec-credential.js';

/** The credentials one request carries: request options, and the exec credential among them, if any. */
export interface Authorization {
  readonly options: https.RequestOptions;
  readonly credential?: ExecCredential;
}

/**
 * The `client.authentication.k8s.io/exec` extension of each cluster as the kubeconfig writes it:
 * client-node drops `extensions`, and KUBERNETES_EXEC_INFO gives it to the plugin as `config`.
 */
const execExtensions = new WeakMap<Cluster, unknown>();

/** Records a cluster's `client.authentication.k8s.io/exec` extension (read by kubeconfig.ts from the raw file). */
export function setExecExtension(cluster: Cluster, config: unknown): void {
  execExtensions.set(cluster, config);
}

/** The credentials of a kubeconfig's current context. */
export class KubeAuth {
  /** The kubeconfig user in use, and its context, as messages name them. */
  readonly user: string;
  readonly context: string;
  private readonly exec: ExecAuthenticator | undefined;
  private readonly user_: User | undefined;
  /** The kubeconfig client-node applies when no exec credential is used. */
  private readonly plain: KubeConfig;
  /** The kubeconfig as client-node sees it for one exec credential (no exec, the credential instead). */
  private view: { credential: ExecCredential; kubeConfig: KubeConfig } | undefined;

  /** @throws ExecPluginError when the user's `exec` is invalid (clientcmd's validation). */
  constructor(private readonly kubeConfig: KubeConfig) {
    this.user_ = kubeConfig.getCurrentUser() ?? undefined;
    this.user = this.user_?.name ?? '';
    this.context = kubeConfig.getCurrentContext();
    const user = this.user_;
    this.plain = kubeConfig;
    if (!user?.exec) return;
    // client-go uses the plugin only when the user has no token, basic auth or client certificate;
    // client-node would run it anyway and send the token, so the plugin is taken out of its sight.
    if (user.token || user.username || user.certData || user.certFile) {
      this.plain = this.withUser({ ...user, exec: undefined });
      return;
    }
    const who = `user "${this.user}" of context "${this.context}"`;
    const config = validExecConfig(user.exec as ExecConfig, who);
    this.exec = execAuthenticator(config, execCluster(kubeConfig.getCurrentCluster()!), who);
  }

  /** Request options with the kubeconfig's TLS settings, proxy agent and credentials. */
  async authorize(): Promise<Authorization> {
    const options: https.RequestOptions = { headers: {} };
    if (!this.exec) {
      await this.plain.applyToHTTPSOptions(options);
      return { options };
    }
    const credential = await this.exec.credential();
    await this.viewOf(credential).applyToHTTPSOptions(options);
    return { options, credential };
  }

  /**
   * After a 401 to a request sent with `used`: whether a retry can carry another credential (the exec
   * plugin ran again, here or for another request). Tokens and certificates of the file cannot change.
   * @throws ExecPluginError when the plugin fails on this run
   */
  async unauthorized(used: Authorization): Promise<boolean> {
    if (!this.exec || !used.credential) return false;
    return (await this.exec.refresh(used.credential)) !== used.credential;
  }

  /** What to do about a 401 that stayed one: whose credential was refused and how to get a new one. */
  refusedHint(): string {
    const who = `user "${this.user}" of context "${this.context}"`;
    const user = this.user_;
    if (this.exec)
      return `the API server refused the credential of ${who}, from the exec plugin ${path.basename(this.exec.command)} (run again after the first 401: its new credential was refused too). Log in again with the tool that wrote the kubeconfig (aws sso login, gcloud auth login, az login, kubelogin…), check that the identity it logs in as has access to this cluster, or write a new kubeconfig`;
    if (user?.token)
      return `the API server refused the token of ${who}: it expired or was revoked. Get a new token and update the kubeconfig (in CI, the secret that holds it)`;
    if (user?.certData || user?.certFile)
      return `the API server refused the client certificate of ${who}: it expired or is not signed by a CA the cluster trusts. Issue a new one and update the kubeconfig (in CI, the secret that holds it)`;
    if (user?.username)
      return `the API server refused the username and password of ${who}: update them in the kubeconfig`;
    const provider = (user?.authProvider as { name?: string } | undefined)?.name;
    if (provider === 'tokenFile')
      return `the API server refused the service account token of ${who}: the Pod's token expired or its ServiceAccount was deleted`;
    if (provider)
      return `the API server refused the credential of ${who}, from auth-provider ${provider}: log in again with its tool, or write a new kubeconfig`;
    return `${who} has no credentials (no token, client certificate or exec plugin): add one to the kubeconfig`;
  }

  /** The kubeconfig with the current user's exec replaced by `credential`, made once per credential. */
  private viewOf(credential: ExecCredential): KubeConfig {
    if (this.view?.credential === credential) return this.view.kubeConfig;
    const b64 = (pem: string | undefined) => (pem ? Buffer.from(pem).toString('base64') : undefined);
    const { token, cert, key } = credential;
    const user = { ...this.user_!, exec: undefined, token, certData: b64(cert), keyData: b64(key) };
    const kubeConfig = this.withUser(user);
    this.view = { credential, kubeConfig };
    return kubeConfig;
  }

  /**
   * The kubeconfig with the current user replaced by `user`. A new KubeConfig has its own agent
   * cache: a rotated client certificate gets new connections, as client-go closes every connection
   * when the plugin's certificate changes.
   */
  private withUser(user: User): KubeConfig {
    const kc = this.kubeConfig;
    const view = new KubeConfig();
    view.loadFromOptions({
      clusters: kc.getClusters(),
      users: kc.getUsers().map((u) => (u.name === this.user ? user : u)),
      contexts: kc.getContexts(),
      currentContext: kc.getCurrentContext(),
    });
    return view;
  }
}

/** The cluster as client-go's ConfigToExecCluster gives it to a plugin with `provideClusterInfo`. */
function execCluster(cluster: Cluster): ExecCluster {
  let ca = cluster.caData;
  if (!ca && cluster.caFile) {
    try {
      ca = readFileSync(cluster.caFile).toString('base64');
    } catch {
      ca = undefined; // client-node's own read of it fails the request with the reason
    }
  }
  const config = execExtensions.get(cluster);
  return {
    server: cluster.server,
    ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
    ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(ca ? { 'certificate-authority-data': ca } : {}),
    ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
    ...(config !== undefined ? { config } : {}),
  };
}
