import type { KubeClient } from '../cluster/client.js';
import type { Discovery } from '../cluster/discovery.js';

/**
 * What the planner and the applier need of the cluster: requests and 404-tolerant GETs
 * ({@link KubeClient}), and what the server serves ({@link Discovery}). A small surface, so that
 * they can be unit-tested against an in-memory fake (test/unit/engine/fake-kube.ts).
 */
export type KubeApi = Pick<KubeClient, 'request' | 'getOrUndefined'>;

/** The part of {@link Discovery} the planner and the applier read. */
export type KubeDiscovery = Pick<Discovery, 'resolve' | 'refresh' | 'serverVersion'>;

/**
 * The cluster as core/ and engine/ receive it from a front end. A placeholder for the port being
 * defined on another branch (today's KubeApi plus list-metadata and watch): the whole client for now.
 */
export type ClusterPort = KubeClient;
