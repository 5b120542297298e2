export interface RendererObject {
  kind: string;
  name: string;
  service?: string;
}
export declare function rendererModel(size: number): RendererObject[];
export declare function chartFiles(size: number): Record<string, string>;
export declare function overlayFiles(size: number): Record<string, string>;
export declare const RENDERER_TARGETS: {
  chartFirst: number;
  chartNoop: number;
  overlayFirst: number;
  render: number;
};
export declare function median(values: readonly number[]): number | undefined;
export declare function verdict(
  spreadMs: number | undefined,
  peerMs: number | undefined,
  target: number | undefined,
): string;
export declare function renderMeasures(
  spreadMs: number | undefined,
  peerMs: number | undefined,
  nodeStartMs: number | undefined,
): { ratio: number; addedMs: number; withoutNodeStart?: number } | undefined;
