// The readiness of a CustomResourceDefinition: custom resources of it can only be applied once it is
// Established, and a name clash (NamesAccepted False) never resolves on its own.
import { conditionsOf, isCrdEstablished } from '../../base/conditions.js';
import { current, failed, inProgress, type StatusReader } from './types.js';

/** An apiextensions.k8s.io/v1 CustomResourceDefinition: Established; NamesAccepted False fails. */
export const customResourceDefinitionStatus: StatusReader = {
  state(o) {
    const names = conditionsOf(o).find((c) => c.type === 'NamesAccepted');
    if (names?.status === 'False') return failed(`names not accepted: ${names.message ?? ''}`);
    if (isCrdEstablished(o)) return current('established');
    return inProgress('not established yet');
  },
};
