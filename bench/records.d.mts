export type Tool = 'spread' | 'kubectl' | 'kubectl-applyset' | 'helm' | 'floor';
export type Step = 'first' | 'noop' | 'changed' | 'pruned';
export declare const TOOLS: readonly Tool[];
export declare const STEPS: readonly Step[];
export interface Run {
  objects: number;
  rttMs: number;
  step: string;
  tool: string;
  ms: number;
  requests?: number;
  writes?: number;
  rssKb?: number;
}
export interface BenchRecord {
  objects: number;
  rtt_ms: number;
  step: Step;
  tool: Tool;
  runs: number;
  median_ms: number;
  min_ms: number;
  max_ms: number;
  requests: number | null;
  writes: number | null;
  peak_rss_mb: number | null;
}
export declare function median(values: readonly (number | undefined)[]): number | undefined;
export declare function benchRecords(runs: readonly Run[]): BenchRecord[];
export declare function writeRecords(file: string, records: readonly BenchRecord[]): void;
