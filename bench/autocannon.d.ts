// Minimal types for the parts of autocannon@8 the benchmarks use (the package ships none).
declare module 'autocannon' {
  /** One request of a `requests` sequence; `setupRequest` may rewrite it before each send. */
  interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null;
  }

  interface Options {
    url: string;
    requests?: RequestParams[];
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  interface Result {
    url: string;
    connections: number;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  interface Instance extends Promise<Result> {
    stop(): void;
    /** Every response, with its latency in (fractional) milliseconds from process.hrtime. */
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): this;
  }

  function autocannon(options: Options): Instance;
  export type { Instance, Options, RequestParams, Result };
  export default autocannon;
}
