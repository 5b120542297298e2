// The plan's types now live in engine/shared/ (below plan and apply, so that neither imports the
// other); this re-export keeps core's deploy files, rewritten in parallel, compiling until they import
// shared/ directly. Delete it then.
export type { ApplyOptions } from '../shared/options.js';
export type { PlannedAction, PlannedObject } from '../shared/planned.js';
