// The readiness of a batch/v1 Job: done when Complete (or suspended), and failed on its Failed
// condition, so that a failing Job ends the wait at once instead of at its timeout.
import { conditionsOf } from '../../base/conditions.js';
import { current, failed, fieldsOf, inProgress, num, type StatusReader } from './types.js';

/** A batch/v1 Job: its Complete or Failed condition; a suspended Job is done. */
export const jobStatus: StatusReader = {
  withPods: true,
  state(o) {
    const { spec, status } = fieldsOf(o);
    const conditions = conditionsOf(o);
    if (conditions.some((c) => c.type === 'Complete' && c.status === 'True')) return current('complete');
    const failure = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
    if (failure) return failed(`failed: ${failure.reason ?? ''} ${failure.message ?? ''}`.trim());
    if (spec.suspend === true) return current('suspended');
    return inProgress(`${num(status.succeeded)} succeeded, ${num(status.active)} active`);
  },
};
