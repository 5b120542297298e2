// The health rules spread ships for custom resources that read their status their own way (see
// docs/health-and-prune.md, "Shipped rules", for why each is needed). A rule of the same GroupKind in
// the project file replaces spread's. Each is tested against its project's real CRD.
import { type HealthRule, healthRule } from '../../project/health.js';

const SHIPPED = { file: 'shipped with spread', line: 0 };

/** `c.observedGeneration`, where a condition has it, is the object's generation. */
const AT_GENERATION = '(!has(c.observedGeneration) || c.observedGeneration == metadata.generation)';

/**
 * Argo Rollouts' Rollout: its `status.observedGeneration` is a string and it publishes no Ready,
 * Reconciling or Stalled condition, so the default reading never waits on it. The controller computes
 * `status.phase` (Healthy, Progressing, Paused, Degraded; rollout/sync.go, utils/rollout/rolloututil.go);
 * `kubectl argo rollouts status` ends on Healthy (success) or Degraded (failure), and so does this rule.
 * A Paused rollout waits (for a promotion) until the deploy's timeout, as that command does.
 */
const ROLLOUT = [
  'Rollout.argoproj.io',
  {
    inProgress:
      '!has(status.observedGeneration) || status.observedGeneration != string(metadata.generation) || (has(status.controllerPause) && status.controllerPause && (!has(status.pauseConditions) || size(status.pauseConditions) == 0))',
    failed: "has(status.phase) && status.phase == 'Degraded'",
    current: "has(status.phase) && status.phase == 'Healthy'",
  },
] as const;

/**
 * cert-manager's Certificate: Ready is the default reading's condition, but its controllers write no
 * `status.observedGeneration` (each condition has its own), so a Ready left from the previous spec
 * reads as current; and a failed issuance (the Issuing condition False with the CertificateRequest's
 * reason, retried only after a backoff of an hour or more; issuing_controller.go failIssueCertificate)
 * never fails the default reading, which waits for the timeout. `Issued` is the reason of a success.
 */
const CERTIFICATE = [
  'Certificate.cert-manager.io',
  {
    failed: `has(status.conditions) && status.conditions.exists(c, c.type == 'Issuing' && c.status == 'False' && c.reason != 'Issued' && ${AT_GENERATION})`,
    current: `has(status.conditions) && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True' && ${AT_GENERATION})`,
  },
] as const;

// Flux's HelmRelease needs no rule: it follows kstatus (Ready, Reconciling, Stalled), which the
// default reading follows too, and its CRD defaults `status.observedGeneration` to -1, so a
// HelmRelease just created is waited until helm-controller reconciled it (observedGeneration is
// written when a reconcile ends: a success, a terminal error, or a suspended object; Stalled
// RetriesExceeded fails it). test/integration/shipped-rules.itg.test.ts checks this on the real CRD.

const TEXTS = new Map<string, Parameters<typeof healthRule>[1]>([ROLLOUT, CERTIFICATE]);
const compiled = new Map<string, HealthRule>();

/** The GroupKinds spread ships a rule for. */
export const SHIPPED_GROUP_KINDS: readonly string[] = [...TEXTS.keys()];

/**
 * The rule spread ships for a GroupKind, or undefined. Compiled on the first call for it, not when
 * this module loads: compiling loads CEL (src/project/health-cel.ts), which a deploy without such
 * objects does not need.
 */
export function shippedRule(groupKind: string): HealthRule | undefined {
  const texts = TEXTS.get(groupKind);
  if (!texts) return undefined;
  let rule = compiled.get(groupKind);
  if (!rule) {
    rule = healthRule(groupKind, texts, SHIPPED);
    compiled.set(groupKind, rule);
  }
  return rule;
}
