import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/index.ts';

/** Liveness and readiness, without authentication (DESIGN.md section 8). */
export function registerHealth(app: FastifyInstance, store: Store): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await store.isReady();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable' });
  });
}
