// The contract between the directory walk and the inputs rendered by the ecosystem's own tools
// (kustomize, Helm): the walk finds a folder holding `kustomization.yaml` or `Chart.yaml`, does not
// read inside it by the convention, and hands it to the renderer of its kind; the objects it returns
// are deployed at that folder's level with the sources the tool's own output names.
import type { InputIssue } from '../base/source.js';
import type { ObjectValue } from '../entity/build.js';

/** The kinds of folder rendered by an outside tool: a kustomization, a Helm chart. */
export type RenderedKind = 'kustomize' | 'helm';

/** One folder to render. */
export interface RenderRequest {
  readonly kind: RenderedKind;
  /** The folder, absolute. */
  readonly abs: string;
  /** The folder relative to the input root, POSIX separators, `.` for the root itself. */
  readonly dir: string;
  /** The input root, absolute: every source a renderer returns is relative to it. */
  readonly root: string;
}

/** What a renderer made of one folder. */
export interface RenderResult {
  /**
   * The objects, in the tool's output order, each with the file (relative to the input root) and
   * line it came from as far as the tool says (a kustomize origin annotation, a Helm `# Source:`
   * line); annotations the renderer asked for only to learn sources are already removed.
   */
  readonly objects: readonly ObjectValue[];
  /** Problems found, each at its source; any error stops the deploy before anything is written. */
  readonly issues: readonly InputIssue[];
  /** Which tool rendered, for the report: `kustomize v5.7.1`, `helm v3.21.4`. */
  readonly tool: string;
}

/** Renders one folder; rejects only on a fault of the renderer itself (a tool's errors are issues). */
export type Renderer = (request: RenderRequest) => Promise<RenderResult>;

/** The renderers an input may use, by kind; a folder of a kind with no renderer is an error. */
export type Renderers = Partial<Record<RenderedKind, Renderer>>;
