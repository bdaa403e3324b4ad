import { createParley, ParleyError, unwrap, type Parley } from '../../sdk/index.ts';

// The signed-in key lives in sessionStorage: gone when the browser session ends, never in
// localStorage or a URL. Any 401 signs out (a revoked key sends the user back to sign-in).

const KEY = 'parley.key';
let listeners: (() => void)[] = [];
let reason: string | null = null;

export function onSessionChange(listener: () => void): () => void {
  listeners.push(listener);
  return () => {
    listeners = listeners.filter((l) => l !== listener);
  };
}

function changed() {
  for (const l of listeners) l();
}

export function currentKey(): string | null {
  return sessionStorage.getItem(KEY);
}

/** Why the user was signed out, once (shown on the sign-in page). */
export function takeSignOutReason(): string | null {
  const r = reason;
  reason = null;
  return r;
}

export function signOut(why: string | null = null): void {
  sessionStorage.removeItem(KEY);
  reason = why;
  changed();
}

/** Checks the key against the API, then keeps it for this browser session. */
export async function signIn(key: string): Promise<void> {
  const probe = createParley({ baseUrl: location.origin, apiKey: key });
  await unwrap(probe.api.GET('/v2/workspace'));
  sessionStorage.setItem(KEY, key);
  changed();
}

/** The API client for the signed-in key; a 401 from any request signs out. */
export function parley(): Parley {
  const key = currentKey() ?? '';
  return createParley({
    baseUrl: location.origin,
    apiKey: key,
    fetch: async (request) => {
      const response = await fetch(request);
      if (response.status === 401 && currentKey() === key)
        signOut('Your key was refused (revoked or expired). Sign in again.');
      return response;
    },
  });
}

/** The API's words for a failure, for showing to the user. */
export function describe(err: unknown): string {
  if (err instanceof ParleyError)
    return err.status === undefined ? `No answer from the server (${err.description}).` : err.description;
  return err instanceof Error ? err.message : String(err);
}

/** A record that is not there: 404, or a refusal that says so (the 400 of a malformed id). */
export function isMissing(err: unknown): boolean {
  return err instanceof ParleyError && (err.status === 404 || /not found/i.test(err.description));
}

/** The API's message for one field of a refused request, if it named that field. */
export function fieldError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ParleyError)) return undefined;
  const hit = err.errors.find((e) => e.loc.map(String).includes(field));
  if (hit) return hit.msg;
  return err.status === 400 && new RegExp(`\\b${field}\\b`).test(err.description)
    ? err.description
    : undefined;
}

export { unwrap };
