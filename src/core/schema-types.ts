import { Kind, Type, TypeRegistry, type TUnsafe } from '@sinclair/typebox';

// TypeBox building blocks shared by stored configuration (the agent spec) and the API's request
// schemas, so both are written once. They must work with the API's validator (Ajv) and with
// TypeBox's own compiled checks (the store checks what it reads back).

const STRING_ENUM = 'StringEnum';

// TypeBox's compiler refuses schemas of a kind it does not know; this one is a string in a list.
// Registering is idempotent (the same check under the same name).
TypeRegistry.Set<{ enum: readonly string[] }>(
  STRING_ENUM,
  (schema, value) => typeof value === 'string' && schema.enum.includes(value),
);

/** A string enum as JSON Schema `enum`, so a bad value's error lists the allowed ones. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ [Kind]: STRING_ENUM, type: 'string', enum: [...values], ...options });
}

export const NonEmptyString = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });

/** An http(s) URL; the scheme is checked by the rules beyond the schema. */
export const HttpUrl = (description: string) =>
  Type.String({ maxLength: 2048, description: `${description} (http or https URL)` });
