// The error of a push the registry did not confirm, apart from the build's errors so that the front
// ends can tell a build failure from a registry problem.
/** A push that ended without the registry holding what was built. */
export class PushError extends Error {
  readonly registry: string;
  constructor(message: string, registry: string) {
    super(message);
    this.name = 'PushError';
    this.registry = registry;
  }
}
