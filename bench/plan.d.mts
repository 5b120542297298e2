export declare const LARGE_SIZE: number;
export declare function parseLargeTools(
  text: string,
  known: readonly string[],
): Map<string, Set<number> | undefined> | undefined;
export declare function toolsAt(
  size: number,
  rttMs: number,
  tools: readonly string[],
  large: Map<string, Set<number> | undefined> | undefined,
): string[];
export declare function passes(
  sizes: readonly number[],
  rtts: readonly number[],
): { rttMs: number; sizes: number[] }[];
export declare function runOrder<T>(items: readonly T[], run: number): T[];
export declare function orderPeriod(count: number): number;
