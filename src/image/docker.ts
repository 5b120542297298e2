/** A push that ended without the registry holding what was built. */
export class PushError extends Error {
  readonly registry: string;
  constructor(message: string, registry: string) {
    super(message);
    this.name = 'PushError';
    this.registry = registry;
  }
}
