// Benchmark baseline: a bare Fastify 5 app (no plugins, no auth, no database) serving canned JSON
// bodies from memory on the given route paths. BENCH_BARE_ROUTES names a JSON file holding
// `[{ "path": "/v2/...", "body": {...}, "method": "POST" }]` (method defaults to GET; a JSON
// request body is parsed by Fastify's default parser and ignored); HOST and PORT pick the address.
// Prints `LISTENING <url>` once ready.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

interface CannedRoute {
  path: string;
  body: unknown;
  method?: 'GET' | 'POST';
}

const file = process.env.BENCH_BARE_ROUTES;
if (!file) throw new Error('BENCH_BARE_ROUTES is not set');
const routes = JSON.parse(readFileSync(file, 'utf8')) as CannedRoute[];

const app = Fastify({ logger: false });
for (const route of routes) {
  const body = route.body;
  // Returned as an object, so Fastify serializes it per request as any plain handler would.
  app.route({ method: route.method ?? 'GET', url: route.path, handler: async () => body });
}

const url = await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`LISTENING ${url}\n`);

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
