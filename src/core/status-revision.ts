// The comparison of the cluster with the deployment's last deployed revision (from its history)
// rather than with the directory: what drift asks ("did anything change since the last deploy?"),
// so that commits not deployed yet are not drift. Writes nothing.
import { type ApplySet, applySetFor, readParent } from '../engine/inventory/applyset.js';
import {
  lastDeployedRevision,
  listRevisions,
  type Revision,
  readRevision,
  revisionOfParent,
} from '../engine/inventory/history.js';
import { revisionObject } from './rollback.js';
import { compareObjects, type StatusOptions, statusName } from './status.js';
import { listed, type ObjectState, objectKey, objectStatusOf, type StatusReport } from './status-report.js';

/**
 * The deployment's last deployed revision ({@link lastDeployedRevision}) with its objects, or
 * undefined when it has none (never deployed, or every revision failed).
 */
export async function lastDeployed(
  options: StatusOptions & { cluster: NonNullable<StatusOptions['cluster']> },
): Promise<{ revision: Revision; set: ApplySet } | undefined> {
  const { api: client } = options.cluster.connection;
  const namespace = options.namespace || options.cluster.connection.namespace;
  const name = await statusName(client, namespace, options);
  const parent = await readParent(client, applySetFor(name, namespace));
  if (!parent.exists) return undefined;
  const set = applySetFor(name, namespace, parent.origin);
  const number = lastDeployedRevision(await listRevisions(client, set), revisionOfParent(parent.object));
  const revision = number === undefined ? undefined : await readRevision(client, set, number);
  return revision ? { revision, set } : undefined;
}

/**
 * `spread status` against a stored revision: each of its objects compared with the cluster as the
 * directory's are (server-side dry run, labels as recorded), and the objects of the deployment it
 * does not hold, which a deploy of it would prune. The report's tree is flat: the Application (the
 * deployment) with the revision's objects, each with the source it was deployed from.
 */
export async function revisionStatus(
  options: StatusOptions & { cluster: NonNullable<StatusOptions['cluster']> },
  stored: { revision: Revision; set: ApplySet },
): Promise<StatusReport> {
  const { connection } = options.cluster;
  const objects = stored.revision.objects.map(revisionObject);
  const compared = await compareObjects(connection, stored.set, objects, {
    concurrency: options.cluster.concurrency ?? 32,
    health: new Map(),
    logger: options.logger,
    // A Helm hook the revision does not hold did not run then; a rollback to it runs and prunes none.
    keepHooks: `a Helm hook revision ${stored.revision.revision} did not run: not compared, and a rollback to it runs none`,
  });
  const statuses = objects.map((o) =>
    objectStatusOf(o.object, o, compared.states.get(objectKey(o)) ?? { state: 'missing' }),
  );
  const count = (s: ObjectState) => statuses.filter((o) => o.state === s).length;
  return {
    deployment: stored.set.name,
    namespace: stored.set.namespace,
    context: connection.context,
    root: {
      type: 'Application',
      name: stored.set.name,
      source: `revision ${stored.revision.revision}`,
      objects: statuses,
      children: [],
    },
    notInDirectory: compared.notInDirectory.map(listed),
    kept: compared.kept.map((o) => ({ ...listed(o), message: o.reason })),
    counts: {
      objects: statuses.length,
      compared: true,
      missing: count('missing'),
      inSync: count('in sync'),
      differs: count('differs'),
      rejected: count('rejected'),
    },
    warnings: [],
  };
}
