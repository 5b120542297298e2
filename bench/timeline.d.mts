export interface Round {
  start: number;
  end: number;
  requests: number;
}
export declare function serialRounds(requests: readonly { start: number; end: number }[]): {
  rounds: Round[];
  busyMs: number;
  gapMs: number;
};
