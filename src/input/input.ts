import type { Application } from '../entity/entity.js';

/**
 * A source of configuration (seed "Input"): anything that can produce the entity tree of an
 * Application. Several inputs may coexist (a directory, a manifest, later others).
 */
export interface Input {
  /**
   * Reads the input and builds its Application.
   *
   * @throws InputError with every problem found (file:line each), when there is at least one error.
   */
  entity(): Promise<Application>;
}
