// Where the deployed application answers (an Ingress host, an HTTPRoute, a LoadBalancer address), for
// the `url` output and the GitHub environment's link, by one documented rule.
import type { KubeObject } from '../base/kube-object.js';

/**
 * Where the deployed application answers, from its objects. The rule (docs/environments.md, "The
 * application's URL"), first match wins:
 *
 * 1. an Ingress (networking.k8s.io) with a rule naming a host: `https://host` when a `spec.tls` entry
 *    lists the host (or a wildcard `*.domain` covering it), else `http://host`; the first path of that
 *    rule is appended when it is a plain path other than `/`;
 * 2. a Gateway API HTTPRoute (gateway.networking.k8s.io) with a hostname: `https://hostname`, or
 *    `http://` when every listener of its parent Gateways that it can attach to has protocol HTTP;
 * 3. a Service of type LoadBalancer with an address in `status.loadBalancer.ingress` (hostname, else
 *    IP): `https://address` when it has port 443, `http://address` with port 80, else
 *    `http://address:PORT` of its first port.
 *
 * Within a kind, objects count in the deployment's order (namespace, then name). Wildcard hosts give
 * no URL. `from` (`KIND/NAME`, e.g. `ingress/web`, `httproute/web`, `service/web`) names the object to
 * take instead. Sources: Kubernetes API reference (IngressSpec, ServiceStatus), Gateway API
 * HTTPRouteSpec and Listener.
 */
export interface ApplicationUrl {
  /** The URL, e.g. `https://shop.example.com`. */
  readonly url: string;
  /** The object it comes from, `kind/name` in lower case (`ingress/web`). */
  readonly object: string;
}

/** A parsed `KIND/NAME` of the `url-from` option. */
export interface UrlFrom {
  /** `ingress`, `httproute` or `service`. */
  readonly kind: UrlKind;
  readonly name: string;
}

export type UrlKind = 'ingress' | 'httproute' | 'service';

const KINDS: Readonly<Record<string, UrlKind>> = {
  ingress: 'ingress',
  ingresses: 'ingress',
  ing: 'ingress',
  httproute: 'httproute',
  httproutes: 'httproute',
  service: 'service',
  services: 'service',
  svc: 'service',
};

/**
 * Parses `KIND/NAME` as kubectl spells an object (`ingress/web`, `svc/web`, `httproute/web`).
 * @throws Error saying what is expected when the kind is none of those that give a URL.
 */
export function parseUrlFrom(text: string): UrlFrom {
  const slash = text.indexOf('/');
  const kind = KINDS[(slash < 0 ? '' : text.slice(0, slash)).toLowerCase()];
  const name = slash < 0 ? '' : text.slice(slash + 1);
  if (!kind || !name || name.includes('/'))
    throw new Error(
      `expected KIND/NAME of an Ingress, HTTPRoute or LoadBalancer Service (e.g. ingress/web, httproute/web, service/web), got "${text}"`,
    );
  return { kind, name };
}

/** The kind of `o` as far as URLs go, or undefined for any other object. */
export function urlKindOf(o: Pick<KubeObject, 'apiVersion' | 'kind'>): UrlKind | undefined {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  if (o.kind === 'Ingress' && (group === 'networking.k8s.io' || group === 'extensions')) return 'ingress';
  if (o.kind === 'HTTPRoute' && group === 'gateway.networking.k8s.io') return 'httproute';
  if (o.kind === 'Service' && group === '') return 'service';
  return undefined;
}

/** Whether `o` is `from`. */
export function isUrlFrom(o: KubeObject, from: UrlFrom): boolean {
  return urlKindOf(o) === from.kind && o.metadata.name === from.name;
}

/** A listener of a Gateway, as far as the scheme goes. */
interface Listener {
  name?: string;
  port?: number;
  protocol?: string;
  hostname?: string;
}

/** Options of {@link applicationUrl}. */
export interface ApplicationUrlOptions {
  /** Take this object's URL instead of the rule's choice. */
  readonly from?: UrlFrom;
  /**
   * The parent Gateway of an HTTPRoute, by `namespace/name` (undefined: not known). Only the scheme
   * depends on it.
   */
  readonly gateway?: (namespace: string, name: string) => KubeObject | undefined;
}

/**
 * The application's URL among `objects` (as the API server stores them after the deploy, so that a
 * LoadBalancer's status is there), by the rule of {@link ApplicationUrl}; undefined when none gives one.
 */
export function applicationUrl(
  objects: readonly KubeObject[],
  options: ApplicationUrlOptions = {},
): ApplicationUrl | undefined {
  const sorted = [...objects].sort(
    (a, b) =>
      (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const candidates = options.from ? sorted.filter((o) => isUrlFrom(o, options.from!)) : sorted;
  for (const kind of ['ingress', 'httproute', 'service'] as const) {
    for (const o of candidates) {
      if (urlKindOf(o) !== kind) continue;
      const url =
        kind === 'ingress' ? ingressUrl(o) : kind === 'httproute' ? routeUrl(o, options) : serviceUrl(o);
      if (url) return { url, object: `${kind}/${o.metadata.name}` };
    }
  }
  return undefined;
}

function ingressUrl(o: KubeObject): string | undefined {
  const spec = (o.spec ?? {}) as {
    tls?: { hosts?: string[] }[];
    rules?: { host?: string; http?: { paths?: { path?: string }[] } }[];
  };
  const tlsHosts = (spec.tls ?? []).flatMap((t) => t.hosts ?? []);
  for (const rule of spec.rules ?? []) {
    const host = rule.host;
    if (!host || host.startsWith('*')) continue;
    const secure = tlsHosts.some((h) => h === host || (h.startsWith('*.') && coversWildcard(h, host)));
    return `${secure ? 'https' : 'http'}://${host}${plainPath(rule.http?.paths?.[0]?.path)}`;
  }
  return undefined;
}

/** Whether the wildcard `*.domain` covers `host` (exactly one more label, as TLS certificates match). */
function coversWildcard(wildcard: string, host: string): boolean {
  const domain = wildcard.slice(1);
  return host.endsWith(domain) && !host.slice(0, -domain.length).includes('.');
}

/** A path to append: a plain one other than `/`, without a trailing slash. */
function plainPath(p: string | undefined): string {
  if (p === undefined || !p.startsWith('/') || /[*()[\]$^|?+\\]/.test(p)) return '';
  return p.replace(/\/+$/, '');
}

function routeUrl(o: KubeObject, options: ApplicationUrlOptions): string | undefined {
  const spec = (o.spec ?? {}) as {
    hostnames?: string[];
    parentRefs?: { name?: string; namespace?: string; kind?: string; sectionName?: string; port?: number }[];
  };
  const host = (spec.hostnames ?? []).find((h) => !h.startsWith('*'));
  if (!host) return undefined;
  const listeners: Listener[] = [];
  let known = (spec.parentRefs ?? []).length > 0 && options.gateway !== undefined;
  for (const ref of spec.parentRefs ?? []) {
    if ((ref.kind ?? 'Gateway') !== 'Gateway' || !ref.name) {
      known = false;
      continue;
    }
    const gateway = options.gateway?.(ref.namespace ?? o.metadata.namespace ?? '', ref.name);
    if (!gateway) {
      known = false;
      continue;
    }
    const all = ((gateway.spec as { listeners?: Listener[] } | undefined)?.listeners ?? []).filter(
      (l) =>
        (ref.sectionName === undefined || l.name === ref.sectionName) &&
        (ref.port === undefined || l.port === ref.port),
    );
    listeners.push(...all);
  }
  const plain = known && listeners.length > 0 && listeners.every((l) => l.protocol === 'HTTP');
  return `${plain ? 'http' : 'https'}://${host}`;
}

function serviceUrl(o: KubeObject): string | undefined {
  const spec = (o.spec ?? {}) as { type?: string; ports?: { port?: number }[] };
  if (spec.type !== 'LoadBalancer') return undefined;
  const ingress =
    (o.status as { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } } | undefined)
      ?.loadBalancer?.ingress ?? [];
  const first = ingress.find((i) => i.hostname || i.ip);
  if (!first) return undefined;
  const raw = (first.hostname || first.ip)!;
  const address = raw.includes(':') ? `[${raw}]` : raw;
  const ports = (spec.ports ?? []).map((p) => p.port);
  if (ports.includes(443)) return `https://${address}`;
  if (ports.includes(80) || ports.length === 0) return `http://${address}`;
  return `http://${address}:${ports[0]}`;
}
