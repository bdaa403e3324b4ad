import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// Prometheus metrics: request counts and latencies by route template (never the raw URL, which can
// hold phone numbers) and status.

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'parley_' });
  return registry;
}

export function registerMetrics(app: FastifyInstance, registry: Registry): void {
  const requests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  // One labelled child per (method, route, status), kept: prom-client would otherwise hash the
  // label set on every request.
  const children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  function childFor(method: string, route: string, status: string) {
    const key = `${method} ${route} ${status}`;
    let child = children.get(key);
    if (!child) {
      const counter = requests.labels(method, route, status);
      const histogram = duration.labels(method, route, status);
      child = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      children.set(key, child);
    }
    return child;
  }

  app.addHook('onResponse', async (request, reply) => {
    const child = childFor(request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode));
    child.count();
    child.observe(reply.elapsedTime / 1000);
  });

  app.get('/metrics', async (_request, reply) => {
    void reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
