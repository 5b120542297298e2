import type { KubeObject } from '../../deployment/kube-object.js';
import { conditionsOf, current, failed, inProgress, type StatusReader } from './types.js';

/** Whether a CRD's `Established` condition is True. */
export function isEstablished(crd: KubeObject | undefined): boolean {
  return crd !== undefined && conditionsOf(crd).some((c) => c.type === 'Established' && c.status === 'True');
}

/** An apiextensions.k8s.io/v1 CustomResourceDefinition: Established; NamesAccepted False fails. */
export const customResourceDefinitionStatus: StatusReader = {
  state(o) {
    const names = conditionsOf(o).find((c) => c.type === 'NamesAccepted');
    if (names?.status === 'False') return failed(`names not accepted: ${names.message ?? ''}`);
    if (isEstablished(o)) return current('established');
    return inProgress('not established yet');
  },
};
