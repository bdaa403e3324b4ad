import { Type, type SchemaOptions, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { NonEmptyString } from '../../core/index.ts';

// Shapes shared by every resource: the envelope, the error body and limit/offset paging.

export const ErrorBodySchema = Type.Object(
  {
    detail: Type.Object({
      status: Type.Literal('error'),
      description: Type.String({ description: 'Human-readable; names the offending field.' }),
      timestamp: Type.String({ format: 'date-time' }),
      request_id: Type.String(),
      category: Type.Union(
        ['validation', 'not_found', 'conflict', 'auth', 'critical', 'rate_limit'].map((c) => Type.Literal(c)),
      ),
      errors: Type.Optional(
        Type.Array(
          Type.Object({
            loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
            msg: Type.String(),
            type: Type.String(),
          }),
        ),
      ),
    }),
  },
  { $id: 'ErrorBody', title: 'Error body' },
);

/** Error responses to declare on a route, by status. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorBody')]));
}

export function okEnvelope<T extends TSchema>(response: T, extra: Record<string, TSchema> = {}) {
  return Type.Object({ status: Type.Literal('ok'), response, ...extra });
}

export const StatusOnly = Type.Object({ status: Type.Literal('ok') });

export const PaginationSchema = Type.Object({
  total_records: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

/** limit/offset paging; out-of-range values are a 400, never silently clamped. */
export function limitOffsetQuery(defaultLimit: number, maxLimit: number) {
  return {
    limit: Type.Integer({
      minimum: 1,
      maximum: maxLimit,
      default: defaultLimit,
      description: 'Items per page.',
    }),
    offset: Type.Integer({
      minimum: 0,
      maximum: 2_147_483_647,
      default: 0,
      description: 'Index of the first item.',
    }),
  };
}

// Written once in core, where the stored agent spec uses them too.
export { HttpUrl, NonEmptyString, StringEnum } from '../../core/index.ts';

/**
 * `schema` or null, as a type list (`"type": ["string", "null"]`), not an `anyOf` with
 * `Type.Null()`: a response serializer (fast-json-stringify) writes a type list with a typeof
 * check, but runs a schema validator on every value of an `anyOf`, whose failed branch allocates
 * its error objects (on a page of 100 recipients, the most garbage of the whole request). For
 * response records; `schema` must have one `type`.
 */
export function Nullable<T extends TSchema>(
  schema: T,
  options: SchemaOptions = {},
): TUnsafe<Static<T> | null> {
  const type: unknown = schema.type;
  if (typeof type !== 'string') throw new Error('Nullable takes a schema with one type');
  return Type.Unsafe<Static<T> | null>({ ...schema, ...options, type: [type, 'null'] });
}

/** A custom variable's value: prompts are text, so only scalars. */
const VariableValue = Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]);

/**
 * Custom variables in either shape a client sends (src/core/variables.ts reads both): the spec's
 * `[{key, value}]` items or a plain object `{"city": "Oslo"}`. Nested objects are refused.
 */
export function CustomVariablesInput(description: string) {
  return Type.Union(
    [
      Type.Record(Type.String({ maxLength: 100 }), VariableValue, { maxProperties: 200 }),
      Type.Array(Type.Object({ key: NonEmptyString(100), value: VariableValue }), { maxItems: 200 }),
    ],
    { description: `${description} Either \`[{key, value}]\` items or an object of values.` },
  );
}
