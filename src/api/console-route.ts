import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

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

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The headers on a reply, or on the raw response the static files go out on. */
function secure(response: { setHeader(name: string, value: string): unknown }): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
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
    setHeaders: (response) => secure(response),
  });
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    void reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'no-cache' });
    return reply.sendFile('index.html', dir);
  });
};
