import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

// The typed client: openapi-fetch over the generated `paths`, with the key on every request, and
// `unwrap` to turn the `{"status":"ok","response":...}` envelope into its response or a ParleyError.

export type ErrorBody = components['schemas']['ErrorBody'];
export type FieldError = NonNullable<ErrorBody['detail']['errors']>[number];

export interface ParleyOptions {
  /** The server's address, e.g. `http://127.0.0.1:8080` (a trailing `/v2` is dropped). */
  baseUrl: string;
  /** An API key of the workspace to act in. */
  apiKey: string;
  /** A fetch to send requests with (default: the platform's). */
  fetch?: (request: Request) => Promise<Response>;
  /** Each request's limit (default 30 s); 0 waits as long as the server takes. */
  timeoutMs?: number;
}

export interface Parley {
  /** Every route of the API, typed from its OpenAPI document: `api.GET('/v2/calls', {...})`. */
  readonly api: Client<paths>;
  /** The server's address, without a trailing slash. */
  readonly baseUrl: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export function createParley(options: ParleyOptions): Parley {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v2$/, '');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const api = createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
    fetch: (request) =>
      send(timeoutMs > 0 ? new Request(request, { signal: anySignal(request.signal, timeoutMs) }) : request),
  });
  return { api, baseUrl };
}

function anySignal(signal: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
}

/** A request the API refused or could not answer. */
export class ParleyError extends Error {
  override name = 'ParleyError';
  constructor(
    message: string,
    /** The HTTP status; undefined when no answer came. */
    readonly status: number | undefined,
    /** The API's words for what went wrong (names the field for a 4xx). */
    readonly description: string,
    /** Field by field, for a validation error. */
    readonly errors: readonly FieldError[] = [],
    /** How long the server asked to wait before trying again (429), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** `503 store unavailable`, or what kept the answer from coming. */
  get summary(): string {
    return this.status === undefined ? this.message : `${this.status} ${this.description}`;
  }

  /** Worth trying again: no answer, a 5xx or a 429 (the server stores nothing on a 4xx). */
  get retryable(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429;
  }
}

interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/**
 * The `response` of an ok envelope, or a ParleyError: `const calls = await unwrap(api.GET(...))`.
 * A request that got no answer (refused, timed out) throws a ParleyError without a status.
 */
export async function unwrap<D>(call: Promise<Answer<D>>): Promise<D extends { response: infer R } ? R : D> {
  let answer: Answer<D>;
  try {
    answer = await call;
  } catch (err) {
    const reason = err instanceof SyntaxError ? 'the answer is not JSON' : reasonOf(err);
    throw new ParleyError(`no answer from the server: ${reason}`, undefined, reason);
  }
  const { data, error, response } = answer;
  if (response.ok && isObject(data) && data.status === 'ok') {
    return ('response' in data ? data.response : data) as D extends { response: infer R } ? R : D;
  }
  const detail = isObject(error) && isObject(error.detail) ? error.detail : undefined;
  const description =
    typeof detail?.description === 'string'
      ? detail.description
      : response.ok
        ? 'the answer is not an ok envelope'
        : // Not the API's error body (a proxy's page, say): its first words, else the status text.
          (typeof error === 'string' ? error.trim().slice(0, 200) : '') ||
          response.statusText ||
          'no description';
  const errors = Array.isArray(detail?.errors) ? (detail.errors as FieldError[]) : [];
  const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
  const url = new URL(response.url || 'http://unknown/');
  throw new ParleyError(
    `${url.pathname}: ${response.status} ${description}`,
    response.status,
    description,
    errors,
    Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined,
  );
}

function reasonOf(err: unknown): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
    return 'no answer in time';
  const cause =
    err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
