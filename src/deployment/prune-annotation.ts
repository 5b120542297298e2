// spread's prune annotation has one value, `keep`: anything else is an input error, read where the
// object set is built beside the phase and wave annotations' errors, so that all come at once.
import type { KubeObject } from '../base/kube-object.js';
import { SPREAD } from '../base/labels.js';

/**
 * Why `object`'s `spread.rsprd.com/prune` annotation is wrong, if it is: any value but `keep` (the
 * only one, engine/inventory/prune-policy.ts), since a misspelt keep would let prune delete what its
 * author meant to keep. Undefined when the annotation is absent or `keep`.
 */
export function pruneAnnotationError(object: KubeObject): string | undefined {
  const value = object.metadata.annotations?.[SPREAD.prune];
  if (value === undefined || value === 'keep') return undefined;
  return `annotation ${SPREAD.prune}: ${JSON.stringify(value)} is not "keep" (its only value: leave the object in the cluster when the directory drops it)`;
}
