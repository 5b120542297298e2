// The readiness of a Service (a LoadBalancer waits for its address) and the words the progress log uses
// for what a Service exposes outside the cluster.
import type { KubeObject } from '../../base/kube-object.js';
import { current, inProgress, type StatusReader } from './types.js';

/** A Service's `spec.type`, defaulted as the API server does. */
export function serviceType(o: KubeObject): string {
  return (o.spec as { type?: string } | undefined)?.type ?? 'ClusterIP';
}

/** A Service's load-balancer addresses (hostname, else IP). */
export function loadBalancerIngress(o: KubeObject): string[] {
  const ingress = ((
    o.status as { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } } | undefined
  )?.loadBalancer?.ingress ?? []) as { ip?: string; hostname?: string }[];
  return ingress.map((i) => i.hostname ?? i.ip ?? '').filter(Boolean);
}

/** A core/v1 Service: one of type LoadBalancer is ready once it has an ingress address. */
export const serviceStatus: StatusReader = {
  state(o) {
    if (serviceType(o) !== 'LoadBalancer') return current('applied');
    const ingress = loadBalancerIngress(o);
    if (ingress.length > 0) return current(`load balancer ${ingress.join(', ')}`);
    return inProgress('waiting for a load balancer address');
  },
};

/**
 * What a Service offers outside the cluster, for the progress log: `LoadBalancer 203.0.113.7`,
 * `LoadBalancer (no address yet), node ports 80:31234/TCP`, `NodePort 80:31234/TCP`.
 * `undefined` for a Service with neither (ClusterIP, headless, ExternalName).
 */
export function describeServiceExposure(o: KubeObject): string | undefined {
  const type = serviceType(o);
  if (type !== 'LoadBalancer' && type !== 'NodePort') return undefined;
  const ports = (
    (o.spec as { ports?: { port: number; nodePort?: number; protocol?: string }[] })?.ports ?? []
  )
    .filter((p) => p.nodePort)
    .map((p) => `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}`);
  const nodePorts = ports.length > 0 ? `node ports ${ports.join(', ')}` : '';
  if (type === 'NodePort') return `NodePort ${ports.join(', ')}`;
  const ingress = loadBalancerIngress(o);
  return `LoadBalancer ${ingress.length > 0 ? ingress.join(', ') : '(no address yet)'}${nodePorts ? `, ${nodePorts}` : ''}`;
}
