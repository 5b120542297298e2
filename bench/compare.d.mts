export declare const AFTER: 'spread';
export declare const BEFORE: 'spread-before';
export declare const LIMIT: number;
export interface Row {
  size: number | string;
  rttMs: number;
  step: string;
  tool: string;
  reps: number;
  ms?: number;
  minMs?: number;
  maxMs?: number;
  rssMb?: number;
  cpuMs?: number;
  requests?: { total?: number };
}
export interface Side {
  reps: number;
  ms?: number;
  minMs?: number;
  maxMs?: number;
  requests?: number;
  rssMb?: number;
  cpuMs?: number;
}
export interface Comparison {
  size: number | string;
  rttMs: number;
  step: string;
  before: Side;
  after: Side;
  ratio: { ms?: number; cpuMs?: number; requests?: number; rssMb?: number };
}
export declare function buildDist(dir: string): string;
export declare function compareRows(rows: readonly Row[]): Comparison[];
export declare function peakRss(
  comparisons: readonly Comparison[],
  size: number,
): { size: number; before: number; after: number; ratio: number } | undefined;
export declare function worse(comparisons: readonly Comparison[], limit?: number): string[];
export declare function compareTable(comparisons: readonly Comparison[], limit?: number): string;
