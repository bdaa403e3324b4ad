import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { Nullable } from './common.ts';

describe('Nullable', () => {
  it('is a type list, not an anyOf, keeping the schema and its options', () => {
    const schema = Nullable(Type.String({ maxLength: 5 }), { description: 'd' });
    expect(schema).toMatchObject({ type: ['string', 'null'], maxLength: 5, description: 'd' });
    expect(schema).not.toHaveProperty('anyOf');
    expect(Nullable(Type.Record(Type.String(), Type.Unknown()))).toMatchObject({ type: ['object', 'null'] });
  });

  it('refuses a schema without one type', () => {
    expect(() => Nullable(Type.Union([Type.String(), Type.Integer()]))).toThrow(/one type/);
  });

  it('serializes null and values in a response', async () => {
    const app = Fastify();
    const Row = Type.Object({
      s: Nullable(Type.String()),
      n: Nullable(Type.Integer()),
      o: Nullable(Type.Record(Type.String(), Type.Unknown())),
    });
    app.get('/', { schema: { response: { 200: Type.Array(Row) } } }, async () => [
      { s: null, n: null, o: null },
      { s: 'a"b', n: 7, o: { k: [1, 'x'] } },
    ]);
    const res = await app.inject('/');
    expect(res.json()).toEqual([
      { s: null, n: null, o: null },
      { s: 'a"b', n: 7, o: { k: [1, 'x'] } },
    ]);
    await app.close();
  });
});
