import type { FastifyRequest } from 'fastify';
import { MISSING_AUTH, unauthorized, type Clock } from '../core/index.ts';
import type { Store, Workspace } from '../store/index.ts';

// Bearer-key authentication (WIRE.md section 1). The key's workspace scopes everything the request
// does; handlers read it from `request.workspace` and never take a workspace id from the client.

declare module 'fastify' {
  interface FastifyRequest {
    workspace: Workspace;
  }
  interface FastifyContextConfig {
    /**
     * The route also serves requests with no Authorization header at all (public widget use);
     * the handler then finds the workspace itself (see `keyWorkspace`). A header that is present
     * is always checked.
     */
    publicWithoutKey?: boolean;
    /**
     * A provider's webhook, authenticated by its own request signature (checked by the handler):
     * no API key is asked for or read, and no public rate limit applies.
     */
    signedWebhook?: boolean;
  }
}

/** The workspace of the request's key; null on a public route called without a key. */
export function keyWorkspace(request: FastifyRequest): Workspace | null {
  return (request.workspace as Workspace | null) ?? null;
}

export { MISSING_AUTH };
export const INVALID_KEY = 'Unauthorized: Invalid or expired token.';

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Key -> workspace, remembered for a short time so that a request does not pay a database join
 * to authenticate. Routes that change a workspace or its keys call `forgetWorkspace` after their
 * commit, so this process sees the change at once; another process sees it within `ttlMs`.
 * Failed lookups are never cached.
 */
export interface Authenticator {
  authenticate(token: string): Promise<Workspace | null>;
  forgetWorkspace(workspaceId: string): void;
}

export const AUTH_CACHE_TTL_MS = 1000;
const AUTH_CACHE_MAX_ENTRIES = 10_000;

export function createAuthenticator(store: Store, clock: Clock, ttlMs = AUTH_CACHE_TTL_MS): Authenticator {
  const entries = new Map<string, { workspace: Workspace; expiresAt: number }>();
  const byWorkspace = new Map<string, Set<string>>();

  function forget(token: string): void {
    const entry = entries.get(token);
    if (!entry) return;
    entries.delete(token);
    byWorkspace.get(entry.workspace.id)?.delete(token);
  }

  return {
    async authenticate(token) {
      // Keyed by the token itself: hashing it on every request would cost more than the lookup.
      // The map lives in this process's memory only, as the token does while a request runs.
      const cached = entries.get(token);
      if (cached && cached.expiresAt > clock.now()) return cached.workspace;
      if (cached) forget(token);
      const found = await store.apiKeys.authenticate(token);
      if (!found || ttlMs <= 0) return found?.workspace ?? null;
      if (entries.size >= AUTH_CACHE_MAX_ENTRIES) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) forget(oldest);
      }
      entries.set(token, { workspace: found.workspace, expiresAt: clock.now() + ttlMs });
      const tokens = byWorkspace.get(found.workspace.id) ?? new Set<string>();
      tokens.add(token);
      byWorkspace.set(found.workspace.id, tokens);
      return found.workspace;
    },
    forgetWorkspace(workspaceId) {
      for (const token of byWorkspace.get(workspaceId) ?? []) entries.delete(token);
      byWorkspace.delete(workspaceId);
    },
  };
}

export interface AuthenticateOptions {
  /** Called for each request let through without a key (rate limiting); may throw. */
  onPublic?: (request: FastifyRequest) => void;
}

export function authenticate(authenticator: Authenticator, options: AuthenticateOptions = {}) {
  return async function authenticateRequest(request: FastifyRequest): Promise<void> {
    const { config } = request.routeOptions;
    if (config.signedWebhook) return;
    if (request.headers.authorization === undefined && config.publicWithoutKey) {
      options.onPublic?.(request);
      return;
    }
    const token = bearerToken(request.headers.authorization);
    if (!token) throw unauthorized(MISSING_AUTH);
    const workspace = await authenticator.authenticate(token);
    if (!workspace) throw unauthorized(INVALID_KEY);
    request.workspace = workspace;
  };
}
