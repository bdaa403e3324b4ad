import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from '../core/index.ts';

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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};

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
