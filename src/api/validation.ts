import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../core/index.ts';
import type { SchemaCompiles } from './lazy-schemas.ts';

// Two validators: bodies are checked as sent (no type coercion, so `"5"` is not a number and a
// wrong type is a 400), while query strings and path parameters, which are always text, are
// coerced and get their defaults. Every error is collected so the 400 names every bad field.

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const bodyAjv = addFormats(
  new Ajv({
    allErrors: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    strict: false,
  }),
);
const textAjv = addFormats(
  new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, removeAdditional: false, strict: false }),
);

/** Deeper JSON is refused: serializing it (to store it) would exhaust the call stack. */
export const MAX_JSON_DEPTH = 64;

interface Visit {
  value: unknown;
  key: string;
  depth: number;
  parent: Visit | null;
}

function pointer(visit: Visit): string {
  const keys: string[] = [];
  for (let v: Visit | null = visit; v?.parent; v = v.parent) keys.push(v.key);
  return keys
    .reverse()
    .map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string (value or key) cannot be stored as text, or null. */
function badText(text: string): { keyword: string; message: string } | null {
  if (text.includes('\u0000'))
    return { keyword: 'nul', message: 'must not contain the NUL character (U+0000)' };
  if (LONE_SURROGATE.test(text))
    return { keyword: 'unicode', message: 'must be valid Unicode (a lone surrogate)' };
  return null;
}

/**
 * Why `data` cannot be stored, as an ajv-style error, or null. PostgreSQL text cannot hold U+0000
 * or a lone UTF-16 surrogate (a 500 there, silently kept on SQLite), and nesting beyond
 * MAX_JSON_DEPTH overflows the stack when the value is serialized. Iterative, since the input can
 * nest deeper than the stack.
 */
function unstorable(data: unknown): ErrorObject | null {
  const fail = (visit: Visit, keyword: string, message: string): ErrorObject => ({
    keyword,
    instancePath: pointer(visit),
    schemaPath: '#',
    params: {},
    message,
  });
  const stack: Visit[] = [{ value: data, key: '', depth: 0, parent: null }];
  for (let visit = stack.pop(); visit; visit = stack.pop()) {
    const { value } = visit;
    if (typeof value === 'string') {
      const bad = badText(value);
      if (bad) return fail(visit, bad.keyword, bad.message);
    } else if (value !== null && typeof value === 'object') {
      if (visit.depth >= MAX_JSON_DEPTH) {
        return fail(visit, 'depth', `must not nest more than ${MAX_JSON_DEPTH} levels deep`);
      }
      for (const [key, child] of Object.entries(value)) {
        const next = { value: child, key, depth: visit.depth + 1, parent: visit };
        const bad = badText(key);
        if (bad) return fail(next, bad.keyword, bad.message);
        stack.push(next);
      }
    }
  }
  return null;
}

// Every part that has a schema is also checked for values no store can keep (see `unstorable`),
// so they are a 400 on both dialects rather than a 500 on one. With `compiles`, a schema is
// compiled on its route's first request or by the warm-up (see lazy-schemas.ts).
export function validatorCompiler(compiles: SchemaCompiles | null): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? bodyAjv : textAjv;
    const compile = () => ajv.compile(schema as object) as ValidateFunction;
    const eager = compiles === null ? compile() : null;
    const validator = compiles === null ? () => eager as ValidateFunction : compiles.once(compile);
    const checked = ((data: unknown, ctx?: object) => {
      const validate = validator();
      const valid = (validate as (d: unknown, c?: object) => boolean)(data, ctx);
      checked.errors = validate.errors;
      if (!valid) return false;
      const problem = unstorable(data);
      if (problem === null) return true;
      checked.errors = [problem];
      return false;
    }) as ValidateFunction;
    // Fastify passes the request as the parent of the part when the function has a schemaEnv,
    // so that coercion and defaults can replace the part's root value.
    checked.schemaEnv = eager?.schemaEnv ?? ({} as ValidateFunction['schemaEnv']);
    return checked;
  };
}

const PART_NAMES: Record<string, string> = { querystring: 'query', params: 'path', headers: 'header' };

function locOf(err: ErrorObject, part: string): (string | number)[] {
  const loc: (string | number)[] = [PART_NAMES[part] ?? part];
  for (const seg of err.instancePath.split('/').slice(1)) {
    const name = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    loc.push(/^\d+$/.test(name) ? Number(name) : name);
  }
  if (err.keyword === 'required') loc.push((err.params as { missingProperty: string }).missingProperty);
  if (err.keyword === 'additionalProperties') {
    loc.push((err.params as { additionalProperty: string }).additionalProperty);
  }
  return loc;
}

export function dotted(loc: (string | number)[]): string {
  return loc.map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? seg : `.${seg}`)).join('');
}

function messageOf(err: ErrorObject): string {
  switch (err.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of: ${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'type':
      return `must be ${(err.params as { type: string }).type}`;
    case 'additionalProperties':
      return 'is not allowed';
    default:
      return err.message ?? 'is invalid';
  }
}

/** Turns ajv errors into the wire's `errors` items; ajv's noise from union branches is dropped. */
export function fieldErrors(errors: ErrorObject[], part: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const err of errors) {
    if (err.keyword === 'anyOf' || err.keyword === 'oneOf' || err.keyword === 'if') continue;
    const loc = locOf(err, part);
    const msg = `${dotted(loc)} ${messageOf(err)}`;
    if (seen.has(msg)) continue;
    seen.add(msg);
    out.push({ loc, msg, type: err.keyword });
  }
  return out;
}
