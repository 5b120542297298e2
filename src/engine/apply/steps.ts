// The steps of a converge: a deploy's phases and waves (docs/phases.md) turned into apply groups, so
// that the applier's order (step, then kind) holds, and a wait after each step's last group. Without
// steps the converge is exactly the one-step apply it always was.
import type { SourcedObject } from '../../base/kube-object.js';
import type { PlannedObject } from '../shared/planned.js';
import type { AppliedObject } from './applied.js';

/**
 * The steps of a deploy (its phases and waves), numbered from 0: each step's objects are applied
 * group by group, then `afterStep` waits for them before the next step is written. A halt it answers
 * stops the converge there: nothing after it is applied, and nothing is pruned.
 */
export interface Steps {
  readonly stepOf: (o: SourcedObject) => number;
  readonly afterStep: (step: number, applied: readonly AppliedObject[]) => Promise<StepOutcome>;
}

/** What {@link Steps.afterStep} saw: a failure that halts the deploy, and hooks it deleted. */
export interface StepOutcome {
  readonly halt?: Error;
  /** Hook objects deleted by their delete policy (hook-succeeded, hook-failed): no longer applied. */
  readonly deleted?: readonly AppliedObject[];
  /** The policy that deleted them, the step's outcome. */
  readonly deletedBy?: HookDeletion;
}

/** The delete policy that removed a hook once its step was waited for. */
export type HookDeletion = 'hook-succeeded' | 'hook-failed';

/** A converge stopped by a step's failure (see {@link Steps}). */
export interface Halted {
  readonly step: number;
  readonly error: Error;
}

/** Apply groups per step: a kind's group is below this (applyGroup's are 0–6). */
const GROUPS_PER_STEP = 100;

/** Thrown through the applier to end it after a halting step; never leaves the converge. */
class HaltSignal extends Error {}

/** What the converge needs of its steps while it applies: see {@link stepper}. */
export interface Stepping {
  readonly groupOf: (o: SourcedObject) => number;
  afterGroup(group: number): Promise<void>;
  applied(a: AppliedObject): void;
  /** Runs the apply: its result, without deleted hooks, or what was applied before a halt. */
  run(apply: () => Promise<AppliedObject[]>): Promise<AppliedObject[]>;
  readonly halted: Halted | undefined;
  /** The hooks applied, then deleted by their delete policy, in apply order: created all the same. */
  readonly deleted: ReadonlyMap<AppliedObject, HookDeletion>;
}

/**
 * The converge's view of `steps`: apply groups numbered step by step, the step's wait after its last
 * group (every step's, the last one's too, so that a failed `post` Job halts like any other), and the
 * applied objects without the hooks deleted by their policy.
 */
export function stepper(
  steps: Steps | undefined,
  groupOf: (o: SourcedObject) => number,
  plan: readonly PlannedObject[],
): Stepping {
  if (!steps)
    return {
      groupOf,
      afterGroup: async () => {},
      applied: () => {},
      run: (apply) => apply(),
      halted: undefined,
      deleted: new Map(),
    };
  const composite = (o: SourcedObject) => steps.stepOf(o) * GROUPS_PER_STEP + groupOf(o);
  const lastGroup = new Map<number, number>();
  for (const p of plan) {
    const step = steps.stepOf(p);
    lastGroup.set(step, Math.max(lastGroup.get(step) ?? -1, composite(p)));
  }
  const byStep = new Map<number, AppliedObject[]>();
  const all: AppliedObject[] = [];
  const deleted = new Map<AppliedObject, HookDeletion>();
  const state: { halted: Halted | undefined } = { halted: undefined };
  return {
    groupOf: composite,
    applied(a) {
      all.push(a);
      const step = steps.stepOf(a);
      byStep.set(step, [...(byStep.get(step) ?? []), a]);
    },
    async afterGroup(group) {
      const step = Math.floor(group / GROUPS_PER_STEP);
      if (lastGroup.get(step) !== group) return;
      const outcome = await steps.afterStep(step, byStep.get(step) ?? []);
      for (const d of outcome.deleted ?? []) deleted.set(d, outcome.deletedBy ?? 'hook-succeeded');
      if (outcome.halt) {
        state.halted = { step, error: outcome.halt };
        throw new HaltSignal(outcome.halt.message);
      }
    },
    async run(apply) {
      try {
        return (await apply()).filter((a) => !deleted.has(a));
      } catch (error) {
        if (!(error instanceof HaltSignal)) throw error;
        return all.filter((a) => !deleted.has(a));
      }
    },
    get halted() {
      return state.halted;
    },
    get deleted() {
      return new Map([...all].filter((a) => deleted.has(a)).map((a) => [a, deleted.get(a)!]));
    },
  };
}
