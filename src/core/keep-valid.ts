import { TypeGuard, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

// Stored JSON that no longer matches its schema (written before a field was tightened, or edited
// by hand) must not make a read fail: the read keeps what is still valid and drops the rest.

type Kept = { ok: true; value: unknown } | { ok: false };
const DROPPED: Kept = { ok: false };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, even one named `__proto__` (JSON.parse makes those own keys too). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Value.Check without its type guard (Static<TSchema> is unknown: its else branch is never). */
const passes = (schema: TSchema, value: unknown): boolean => Value.Check(schema, value);

function salvage(schema: TSchema, value: unknown): Kept {
  if (passes(schema, value)) return { ok: true, value };
  let candidate: unknown;
  if (TypeGuard.IsObject(schema) && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    const extra = schema.additionalProperties;
    for (const [key, field] of Object.entries(value)) {
      const known = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      const fieldSchema = known ?? (TypeGuard.IsSchema(extra) ? extra : undefined);
      if (fieldSchema) {
        const kept = salvage(fieldSchema, field);
        if (kept.ok) setOwn(out, key, kept.value);
      } else if (extra !== false) {
        setOwn(out, key, field);
      }
    }
    candidate = out;
  } else if (TypeGuard.IsArray(schema) && Array.isArray(value)) {
    // Items are kept one by one; the list is kept if what remains satisfies it (length limits).
    candidate = value.map((item) => salvage(schema.items, item)).flatMap((k) => (k.ok ? [k.value] : []));
  } else {
    return DROPPED;
  }
  return passes(schema, candidate) ? { ok: true, value: candidate } : DROPPED;
}

/**
 * `value` itself when it matches `schema`; otherwise, for objects and arrays, the parts of it that
 * do (fields and items that fail are dropped, nested objects are pruned the same way, keys the
 * schema allows but does not name are kept); undefined when nothing valid is left (a scalar of the
 * wrong type, or an object missing a required field). Bad data never makes it throw.
 */
export function keepValid<T extends TSchema>(schema: T, value: unknown): Static<T> | undefined {
  const kept = salvage(schema, value);
  return kept.ok ? (kept.value as Static<T>) : undefined;
}
