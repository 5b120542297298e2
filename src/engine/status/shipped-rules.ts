// The health rules spread ships for custom resources that read their status their own way (see
// docs/health-and-prune.md, "Shipped rules", for why each is needed). A rule of the same GroupKind in
// the project file replaces spread's. Each is tested against its project's real CRD.
import { type HealthRule, type HealthRules, healthRule } from '../../project/health.js';

const SHIPPED = { file: 'spread (shipped rule)', line: 0 };

/** `c.observedGeneration`, where a condition has it, is the object's generation. */
const AT_GENERATION = '(!has(c.observedGeneration) || c.observedGeneration == metadata.generation)';

/**
 * Argo Rollouts' Rollout: its `status.observedGeneration` is a string and it publishes no Ready,
 * Reconciling or Stalled condition, so the default reading never waits on it. The controller computes
 * `status.phase` (Healthy, Progressing, Paused, Degraded; rollout/sync.go, utils/rollout/rolloututil.go);
 * `kubectl argo rollouts status` ends on Healthy (success) or Degraded (failure), and so does this rule.
 * A Paused rollout waits (for a promotion) until the deploy's timeout, as that command does.
 */
const ROLLOUT = healthRule(
  'Rollout.argoproj.io',
  {
    inProgress:
      '!has(status.observedGeneration) || status.observedGeneration != string(metadata.generation) || (has(status.controllerPause) && status.controllerPause && (!has(status.pauseConditions) || size(status.pauseConditions) == 0))',
    failed: "has(status.phase) && status.phase == 'Degraded'",
    current: "has(status.phase) && status.phase == 'Healthy'",
  },
  SHIPPED,
);

/**
 * cert-manager's Certificate: Ready is the default reading's condition, but its controllers write no
 * `status.observedGeneration` (each condition has its own), so a Ready left from the previous spec
 * reads as current; and a failed issuance (the Issuing condition False with the CertificateRequest's
 * reason, retried only after a backoff of an hour or more; issuing_controller.go failIssueCertificate)
 * never fails the default reading, which waits for the timeout. `Issued` is the reason of a success.
 */
const CERTIFICATE = healthRule(
  'Certificate.cert-manager.io',
  {
    failed: `has(status.conditions) && status.conditions.exists(c, c.type == 'Issuing' && c.status == 'False' && c.reason != 'Issued' && ${AT_GENERATION})`,
    current: `has(status.conditions) && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True' && ${AT_GENERATION})`,
  },
  SHIPPED,
);

/**
 * Flux's HelmRelease follows kstatus (Ready, Reconciling, Stalled, `status.observedGeneration` set
 * only when a reconcile ends), which the default reading follows too; but a HelmRelease just created
 * has no status yet, and the default reading calls such an object ready once applied. The rule waits
 * for the controller's Ready (a suspended HelmRelease is not reconciled: current as it is).
 */
const HELM_RELEASE = healthRule(
  'HelmRelease.helm.toolkit.fluxcd.io',
  {
    inProgress:
      "!(has(spec.suspend) && spec.suspend) && has(status.conditions) && status.conditions.exists(c, c.type == 'Reconciling' && c.status == 'True')",
    failed:
      "has(status.conditions) && status.conditions.exists(c, c.type == 'Stalled' && c.status == 'True')",
    current:
      "(has(spec.suspend) && spec.suspend) || (has(status.conditions) && status.conditions.exists(c, c.type == 'Ready' && c.status == 'True'))",
  },
  SHIPPED,
);

/** The rules spread ships, by GroupKind. */
export const SHIPPED_RULES: HealthRules = new Map<string, HealthRule>(
  [ROLLOUT, CERTIFICATE, HELM_RELEASE].map((r) => [r.groupKind, r]),
);
