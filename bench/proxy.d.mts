export declare const TOXIPROXY_VERSION: string;
export declare const PROXY_NAME: string;
export interface LatencyToxic {
  name: string;
  type: 'latency';
  stream: 'upstream' | 'downstream';
  toxicity: number;
  attributes: { latency: number; jitter: number };
}
export declare function parseRtts(text: string): number[];
export declare function latencyToxics(rttMs: number): LatencyToxic[];
export declare function proxiedKubeconfig(text: string, upstream: string, proxy: string): string;
export declare function hostPort(url: string): string;
export interface LatencyProxy {
  url: string;
  setRtt(ms: number): Promise<void>;
  stop(): void;
}
export declare function startLatencyProxy(options: {
  upstream: string;
  apiPort: number;
  listenPort: number;
  logFile: string;
}): Promise<LatencyProxy>;
