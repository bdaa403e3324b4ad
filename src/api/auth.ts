import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../core/index.ts';
import type { Store, Workspace } from '../store/index.ts';

// Bearer-key authentication (WIRE.md section 1). The key's workspace scopes everything the request
// does; handlers read it from `request.workspace` and never take a workspace id from the client.

declare module 'fastify' {
  interface FastifyRequest {
    workspace: Workspace;
  }
}

export const MISSING_AUTH = 'Missing or invalid Authorization header';
export const INVALID_KEY = 'Unauthorized: Invalid or expired token.';

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export function authenticate(store: Store) {
  return async function authenticateRequest(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw unauthorized(MISSING_AUTH);
    const found = await store.apiKeys.authenticate(token);
    if (!found) throw unauthorized(INVALID_KEY);
    request.workspace = found.workspace;
  };
}
