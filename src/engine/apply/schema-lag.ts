// A CRD's new schema reaches the API server's custom resource handler some time after the CRD is
// written (its informer rebuilds the handler's typed-patch converter; Established says nothing of
// it). Meanwhile server-side apply checks custom resources against the old schema. This tells that
// answer apart from a true one, so the applier retries it for a bounded time.
import type { KubeObject } from '../../base/kube-object.js';
import { poll } from '../../base/poll.js';
import { KubeApiError } from '../../cluster/client.js';
import { crdDefinition } from './crd.js';

/** How long an answer of the old schema is retried, in milliseconds. */
export const SCHEMA_LAG_TIMEOUT_MS = 30_000;

/**
 * The field paths of a server-side apply refusal `failed to create typed patch object (…): .spec.x:
 * field not declared in schema` (one, or several under `errors:`), as structured-merge-diff prints
 * them (`.spec.ports[name="http"].x`); undefined for any other error, or one that also says
 * something else.
 */
export function undeclaredFields(error: unknown): string[] | undefined {
  if (!(error instanceof KubeApiError) || error.code !== 500) return undefined;
  const message = error.message;
  if (!/^failed to create typed patch object\b/.test(message)) return undefined;
  const paths = [...message.matchAll(/(\.\S*?): field not declared in schema/g)].map((m) => m[1]!);
  const problems = message.split(/\n|: (?=\.)/).filter((l) => /^\s*\.\S/.test(l)).length;
  return paths.length > 0 && paths.length === problems ? paths : undefined;
}

/** One step of a field path: a field name, or a list element (`[…]`). */
type Step = { readonly field: string } | { readonly element: true };

/** `.spec.ports[name="a.b"].x` → spec, ports, element, x; undefined when it cannot be read. */
function steps(path: string): Step[] | undefined {
  const out: Step[] = [];
  const token = /\.([^.[\]]+)|\[(?:"(?:[^"\\]|\\.)*"|[^\]"])*\]/y;
  while (token.lastIndex < path.length) {
    const m = token.exec(path);
    if (!m) return undefined;
    out.push(m[1] !== undefined ? { field: m[1] } : { element: true });
  }
  return out;
}

/** The parts of a structural schema (OpenAPI v3, as CRDs hold it) that say which fields exist. */
export interface Schema {
  readonly type?: string;
  readonly properties?: Record<string, Schema>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
}

/** Whether a structural schema declares the field at `path` (or keeps unknown fields there). */
export function declares(schema: Schema | undefined, path: string): boolean {
  const walk = steps(path);
  if (!walk || !schema) return false;
  let node: Schema = schema;
  for (const [i, step] of walk.entries()) {
    if (node['x-kubernetes-preserve-unknown-fields']) return true;
    let next: Schema | undefined;
    if ('element' in step) next = node.items;
    else {
      const implicit =
        (i === 0 || node['x-kubernetes-embedded-resource']) &&
        ['apiVersion', 'kind', 'metadata'].includes(step.field);
      if (implicit) return true;
      const additional = node.additionalProperties;
      next =
        node.properties?.[step.field] ??
        (additional === true ? { 'x-kubernetes-preserve-unknown-fields': true } : additional || undefined);
    }
    if (!next) return false;
    node = next;
  }
  return true;
}

/**
 * Whether `error`, for custom resource `object`, is the old schema's answer: every field it calls
 * undeclared is declared by `crd` (the CRD as this deploy applied it) in the object's version.
 */
export function isStaleSchemaError(error: unknown, object: KubeObject, crd: KubeObject): boolean {
  const paths = undeclaredFields(error);
  if (!paths) return false;
  const version = object.apiVersion.split('/').pop();
  const d = crdDefinition(crd);
  if (!d || object.apiVersion !== `${d.group}/${version}`) return false;
  const versions = (crd.spec as { versions?: { name?: string; schema?: { openAPIV3Schema?: Schema } }[] })
    .versions;
  const schema = versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
  return paths.every((p) => declares(schema, p));
}

/**
 * Runs `attempt` (a server-side apply or dry run of a custom resource whose CRD this deploy
 * applied) until it answers anything but the old schema's refusal ({@link isStaleSchemaError}):
 * after 100 ms, doubling to 2 s, for up to `timeoutMs`. Then the last refusal is thrown as it is.
 */
export async function retryStaleSchema<T>(
  attempt: () => Promise<T>,
  object: KubeObject,
  crd: KubeObject | undefined,
  signal?: AbortSignal,
  timeoutMs = SCHEMA_LAG_TIMEOUT_MS,
): Promise<T> {
  if (!crd) return attempt();
  let last: unknown;
  const answer = await poll(
    async () => {
      try {
        return { value: await attempt() };
      } catch (error) {
        if (!isStaleSchemaError(error, object, crd)) throw error;
        last = error;
        return undefined;
      }
    },
    { intervalMs: 100, maxIntervalMs: 2_000, timeoutMs, ...(signal ? { signal } : {}) },
  );
  if (!answer) throw last;
  return answer.value;
}
