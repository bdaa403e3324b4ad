import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { AgentSpec } from './agent-spec.ts';
import { keepValid } from './keep-valid.ts';
import { StringEnum } from './schema-types.ts';

const Inner = Type.Object({
  n: Type.Optional(Type.Integer({ minimum: 0 })),
  s: Type.Optional(Type.String()),
});
const Schema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 5 })),
    mode: Type.Optional(StringEnum(['a', 'b'] as const)),
    inner: Type.Optional(Inner),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
    pairs: Type.Optional(Type.Array(Type.Object({ key: Type.String() }))),
  },
  { additionalProperties: true },
);

describe('keepValid', () => {
  it('returns a valid value itself', () => {
    const value = { name: 'ok', mode: 'a', inner: { n: 1 }, extra: { any: [1] } };
    expect(keepValid(Schema, value)).toBe(value);
  });

  it('drops fields of the wrong type or out of range and keeps the others', () => {
    expect(keepValid(Schema, { name: 'too long', mode: 'c', tags: 'x', extra: 1 })).toEqual({ extra: 1 });
    expect(keepValid(Schema, { name: 5, mode: 'b' })).toEqual({ mode: 'b' });
  });

  it('prunes nested objects field by field', () => {
    expect(keepValid(Schema, { inner: { n: -1, s: 'kept' } })).toEqual({ inner: { s: 'kept' } });
    expect(keepValid(Schema, { inner: 'not an object', name: 'x' })).toEqual({ name: 'x' });
  });

  it('keeps the valid items of a list, and drops a list still too long', () => {
    expect(keepValid(Schema, { tags: ['a', 2, 'b'] })).toEqual({ tags: ['a', 'b'] });
    expect(keepValid(Schema, { tags: ['a', 'b', 'c'] })).toEqual({});
    expect(keepValid(Schema, { pairs: [{ key: 'k' }, { key: 3 }, {}] })).toEqual({ pairs: [{ key: 'k' }] });
  });

  it('refuses extra keys when the schema does, and checks them against a schema it gives', () => {
    const closed = Type.Object({ a: Type.Optional(Type.Number()) }, { additionalProperties: false });
    expect(keepValid(closed, { a: 1, b: 2 })).toEqual({ a: 1 });
    const typed = Type.Object({}, { additionalProperties: Type.Number() });
    expect(keepValid(typed, { a: 1, b: 'x' })).toEqual({ a: 1 });
  });

  it('is undefined when nothing valid is left', () => {
    expect(keepValid(Schema, 'text')).toBeUndefined();
    expect(keepValid(Schema, [1])).toBeUndefined();
    expect(keepValid(Type.Object({ need: Type.String() }), { need: 1, other: 'x' })).toBeUndefined();
  });

  it('keeps a key named __proto__ as an own field without touching the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "name": 7}') as unknown;
    const kept = keepValid(Schema, value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(Object.keys(kept)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('repairs a stored agent spec: bad voice settings go, the rest of the agent stays', () => {
    const stored = {
      description: 'Front desk',
      is_recording: 'yes',
      agent: {
        prompt: 'Hi',
        interruption_fade_out: 500,
        background_noise: { enabled: true, type: 'street', volume: 20 },
        vendor_setting: { kept: true },
      },
    };
    expect(keepValid(AgentSpec, stored)).toEqual({
      description: 'Front desk',
      agent: {
        prompt: 'Hi',
        background_noise: { enabled: true, volume: 20 },
        vendor_setting: { kept: true },
      },
    });
  });
});
