// The readiness of an object whose GroupKind has a health rule (the project file's `health` section,
// or one spread ships): the rule's CEL expressions decide, after the controller saw the generation.
import { conditionsOf } from '../../base/conditions.js';
import type { KubeObject } from '../../base/kube-object.js';
import { formatSource } from '../../base/source.js';
import { evaluateHealth, type HealthRule } from '../../project/health.js';
import { current, failed, inProgress, NOT_OBSERVED, type RolloutState } from './types.js';

/**
 * An object's state by its GroupKind's rule. A numeric `status.observedGeneration` below
 * `metadata.generation` is InProgress whatever the rule says (the status describes the previous
 * spec; Flux checks the same before its expressions); then {@link evaluateHealth} decides. A failed
 * or waiting state names the expression and the line it was written on, and the controller's own words
 * (`status.message`, else the Ready condition's reason and message).
 */
export function ruleState(rule: HealthRule, o: KubeObject): RolloutState {
  const observed = (o.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  if (typeof observed === 'number' && observed < Number(o.metadata.generation ?? 0))
    return inProgress(NOT_OBSERVED);
  const verdict = evaluateHealth(rule, o as unknown as Record<string, unknown>);
  // The line of the expression that decided (`failed:`), else of `current`, the one not yet true.
  const where = `health rule of ${rule.groupKind} (${formatSource((verdict.matched ?? rule.current).source)})`;
  const words = controllerWords(o);
  if (verdict.status === 'Current') return current(`current by its ${where}`);
  if (verdict.status === 'Failed' && verdict.matched)
    return failed(`failed by its ${where}: failed: ${verdict.matched.text}${words}`);
  if (verdict.matched)
    return inProgress(`in progress by its ${where}: inProgress: ${verdict.matched.text}${words}`);
  const errors = verdict.errors.length > 0 ? ` (${verdict.errors.join('; ')})` : '';
  return inProgress(`not yet current by its ${where}: current: ${rule.current.text}${errors}${words}`);
}

/** `: <status.message>`, else `: Reason: message` of the Ready condition, else nothing. */
function controllerWords(o: KubeObject): string {
  const message = (o.status as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string' && message !== '') return `: ${message}`;
  const ready = conditionsOf(o).find((c) => c.type === 'Ready' && c.status !== 'True');
  const parts = [ready?.reason, ready?.message].filter((x) => x !== undefined && x !== '');
  return parts.length > 0 ? `: ${parts.join(': ')}` : '';
}
