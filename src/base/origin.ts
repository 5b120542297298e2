/**
 * Where a deployment comes from (its origin: a repository and the path inside it, else an absolute
 * path), how the ApplySet parent records it, and the default deployment name it gives. Two
 * directories that share a deployment would prune each other's objects, so the origin is compared
 * before anything is written (core/identity.ts, checkedIdentity).
 */
import { SPREAD } from './labels.js';
import { toDnsLabel } from './names.js';

/**
 * A deployment's origin. With `repository` (`github.com/acme/shop`: the host and path of the
 * repository, no scheme, user or `.git`), `path` is the deployed folder inside it, `/`-separated,
 * `.` for its root; without, `path` is the folder's absolute path on the machine that deployed.
 */
export interface DeploymentOrigin {
  readonly repository?: string;
  readonly path: string;
  /**
   * The spread.yaml environment deployed from the folder, when one is: two environments of one folder
   * are two deployments on purpose, not a namespace that changed. Not part of {@link sameOrigin}.
   */
  readonly environment?: string;
}

/** `github.com/acme/shop, path deploy/k8s`, or `/home/me/shop/k8s` without a repository. */
export function formatOrigin(origin: DeploymentOrigin): string {
  return origin.repository ? `${origin.repository}, path ${origin.path}` : origin.path;
}

/** Whether two origins name the same folder of the same repository (or the same absolute path). */
export function sameOrigin(a: DeploymentOrigin, b: DeploymentOrigin): boolean {
  return (a.repository ?? '') === (b.repository ?? '') && a.path === b.path;
}

/** The parent's annotations that record `origin` (see {@link originOfAnnotations}). */
export function originAnnotations(origin: DeploymentOrigin): Record<string, string> {
  return {
    ...(origin.repository ? { [SPREAD.repository]: origin.repository } : {}),
    [SPREAD.path]: origin.path,
    ...(origin.environment ? { [SPREAD.environment]: origin.environment } : {}),
  };
}

/** The origin a parent's annotations record; undefined for a parent written before spread recorded it. */
export function originOfAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
): DeploymentOrigin | undefined {
  const path = annotations?.[SPREAD.path];
  if (!path) return undefined;
  const repository = annotations[SPREAD.repository];
  const environment = annotations[SPREAD.environment];
  return { ...(repository ? { repository } : {}), path, ...(environment ? { environment } : {}) };
}

/**
 * Folder names that many repositories use for their Kubernetes configuration: as deployment names
 * they would collide between repositories deploying into one namespace.
 */
export const GENERIC_FOLDER_NAMES: ReadonlySet<string> = new Set([
  'app',
  'apps',
  'chart',
  'charts',
  'config',
  'deploy',
  'deployment',
  'deployments',
  'helm',
  'infra',
  'k8s',
  'kube',
  'kubernetes',
  'manifests',
  'ops',
]);

/**
 * The default deployment name of the folder at `origin` (spread convention): the folder's name as a
 * DNS-1123 label, unless it is a generic one ({@link GENERIC_FOLDER_NAMES}); then it is prefixed
 * with the nearest folder above it whose name is not generic, else the repository's name
 * (`acme/shop` + `deploy/k8s` → `shop-k8s`, `services/web/k8s` → `web-k8s`). A repository's root is
 * named after the repository. Without a repository, the folders above are those of the absolute path.
 */
export function defaultDeploymentName(origin: DeploymentOrigin): string {
  const segments = origin.path.split('/').filter((s) => s && s !== '.');
  const top = origin.repository?.split('/').filter(Boolean).pop();
  const label = (s: string) => toDnsLabel(s);
  const folder = segments.pop();
  if (folder === undefined) return label(top ?? 'app');
  if (!GENERIC_FOLDER_NAMES.has(label(folder))) return label(folder);
  const above = [...segments].reverse().find((s) => !GENERIC_FOLDER_NAMES.has(label(s))) ?? top;
  return above ? label(`${above}-${folder}`) : label(folder);
}
