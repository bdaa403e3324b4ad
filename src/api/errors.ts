import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { isParleyError, toIso, type Clock, type ErrorCategory, type FieldError } from '../core/index.ts';
import { fieldErrors } from './validation.ts';

// The one place errors become responses (WIRE.md section 1). Framework errors for malformed
// bodies, wrong content types and oversized bodies are 400s that say which; a 5xx never shows
// its cause to the client.

export interface ErrorBody {
  detail: {
    status: 'error';
    description: string;
    timestamp: string;
    request_id: string;
    category: ErrorCategory;
    errors?: FieldError[];
  };
}

interface Mapped {
  status: number;
  description: string;
  category: ErrorCategory;
  errors?: FieldError[];
}

function mapFrameworkError(err: FastifyError, bodyLimit: number): Mapped | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        status: 400,
        category: 'validation',
        description: `body: malformed JSON (${err.message})`,
        errors: [{ loc: ['body'], msg: 'body is not valid JSON', type: 'json_invalid' }],
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 400,
        category: 'validation',
        description: 'header content-type must be application/json',
        errors: [{ loc: ['header', 'content-type'], msg: 'must be application/json', type: 'content_type' }],
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 400,
        category: 'validation',
        description: `body is larger than the limit of ${bodyLimit} bytes`,
        errors: [{ loc: ['body'], msg: `larger than ${bodyLimit} bytes`, type: 'body_too_large' }],
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        status: 400,
        category: 'validation',
        description: 'header content-length does not match the body',
      };
    default:
      return null;
  }
}

function mapError(err: unknown, bodyLimit: number): Mapped {
  if (isParleyError(err)) {
    return { status: err.status, description: err.message, category: err.category, errors: err.errors };
  }
  const fe = err as FastifyError & { validation?: ErrorObject[]; validationContext?: string };
  if (Array.isArray(fe.validation)) {
    const errors = fieldErrors(fe.validation, fe.validationContext ?? 'body');
    const description = errors.length > 0 ? errors.map((e) => e.msg).join('; ') : fe.message;
    return { status: 400, category: 'validation', description, errors };
  }
  const framework = mapFrameworkError(fe, bodyLimit);
  if (framework) return framework;
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { status: fe.statusCode, category: 'validation', description: fe.message };
  }
  return { status: 500, category: 'critical', description: 'Internal server error' };
}

export function errorBody(request: FastifyRequest, mapped: Mapped, now: number): ErrorBody {
  return {
    detail: {
      status: 'error',
      description: mapped.description,
      timestamp: toIso(now),
      request_id: request.id,
      category: mapped.category,
      ...(mapped.errors && mapped.errors.length > 0 ? { errors: mapped.errors } : {}),
    },
  };
}

export function registerErrorHandling(app: FastifyInstance, clock: Clock): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // The limit that applied: a route's own (batches take 32 MiB) or the server's.
    const mapped = mapError(err, request.routeOptions.bodyLimit);
    if (mapped.status >= 500) {
      request.log.error({ err }, 'request failed');
    }
    if (mapped.status === 429) {
      const retryAfter = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
    }
    return reply.code(mapped.status).send(errorBody(request, mapped, clock.now()));
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(
      errorBody(
        request,
        {
          status: 404,
          category: 'not_found',
          description: `no route ${request.method} ${request.url.split('?')[0]}`,
        },
        clock.now(),
      ),
    ),
  );
}
