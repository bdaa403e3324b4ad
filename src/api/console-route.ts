import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

// The console (console/, built into console/dist) at the server's root: the page at `/`, its
// hashed script and stylesheet under `/assets/`, sent pre-compressed (brotli or gzip) as the
// browser accepts. Every answer carries a content security policy that allows only this origin's
// own files: no inline script, no other origin, no framing.

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply): void {
  void reply.header('content-security-policy', CONSOLE_CSP);
  void reply.header('x-content-type-options', 'nosniff');
  void reply.header('referrer-policy', 'no-referrer');
}

export const consoleRoutes: FastifyPluginAsync<{ dir: string }> = async (app, { dir }) => {
  await app.register(fastifyStatic, {
    root: join(dir, 'assets'),
    prefix: '/assets/',
    preCompressed: true,
    index: false,
    // The names carry their content's hash: a new build gets new names.
    immutable: true,
    maxAge: 365 * 24 * 3600 * 1000,
    setHeaders: (reply) => secure(reply),
  });
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    secure(reply);
    void reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', dir);
  });
};
