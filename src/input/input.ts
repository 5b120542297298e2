// The seed's Input: anything that produces an Application's entity tree; several kinds coexist in one
// Application, and everything after the input is the same for all of them.
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
