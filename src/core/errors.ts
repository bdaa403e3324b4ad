// One error vocabulary for the whole codebase: every error a client can see carries a stable
// code, an HTTP status, a category for the wire body (WIRE.md section 1) and whether a retry
// can help. The API's single error handler turns these into response bodies.

export type ErrorCategory = 'validation' | 'not_found' | 'conflict' | 'auth' | 'critical' | 'rate_limit';

/** One entry of the `errors` array of a validation failure: where, what, and which rule. */
export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface ParleyErrorOptions {
  code: string;
  status: number;
  category: ErrorCategory;
  retryable?: boolean;
  errors?: FieldError[];
  cause?: unknown;
}

export class ParleyError extends Error {
  override name = 'ParleyError';
  readonly code: string;
  readonly status: number;
  readonly category: ErrorCategory;
  readonly retryable: boolean;
  readonly errors: FieldError[] | undefined;

  constructor(description: string, options: ParleyErrorOptions) {
    super(description, { cause: options.cause });
    this.code = options.code;
    this.status = options.status;
    this.category = options.category;
    this.retryable = options.retryable ?? false;
    this.errors = options.errors;
  }
}

/** 400: the request is malformed or breaks a rule; `field` is the dotted location it names. */
export function invalidInput(
  description: string,
  loc?: (string | number)[],
  type = 'value_error',
): ParleyError {
  return new ParleyError(description, {
    code: 'invalid_input',
    status: 400,
    category: 'validation',
    errors: loc ? [{ loc, msg: description, type }] : undefined,
  });
}

/**
 * An addressed resource that does not exist in the caller's workspace. The spec lists no 404 for
 * some operations (agents, chats); WIRE.md says those answer 400 with category `not_found`.
 */
export function notFound(description: string, status: 400 | 404 = 404): ParleyError {
  return new ParleyError(description, { code: 'not_found', status, category: 'not_found' });
}

export function conflict(description: string): ParleyError {
  return new ParleyError(description, { code: 'conflict', status: 409, category: 'conflict' });
}

/** The 401 of a request without a usable key (and the start of a keyless chat's refusal). */
export const MISSING_AUTH = 'Missing or invalid Authorization header';

export function unauthorized(description: string): ParleyError {
  return new ParleyError(description, { code: 'unauthorized', status: 401, category: 'auth' });
}

/** A dependency (the database, a provider) failed; the caller may retry. */
export function unavailable(description: string, cause?: unknown): ParleyError {
  return new ParleyError(description, {
    code: 'unavailable',
    status: 503,
    category: 'critical',
    retryable: true,
    cause,
  });
}

export function isParleyError(err: unknown): err is ParleyError {
  return err instanceof ParleyError;
}
