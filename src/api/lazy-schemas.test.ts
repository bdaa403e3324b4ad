import { describe, expect, it } from 'vitest';
import { SchemaCompiles, serializerFactory } from './lazy-schemas.ts';
import { validatorCompiler } from './validation.ts';

const route = (schema: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema });
const AGENT = { type: 'object', properties: { id: { type: 'string' }, calls: { type: 'integer' } } };
const BROKEN = { type: 'object', properties: { id: { type: 'no-such-type' } } };
const NAMED = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
const part = (schema: unknown) => ({ schema, method: 'POST', url: '/x', httpPart: 'body' });

describe('schemas compiled on first use', () => {
  it('serializes as the eager serializer does, dropping what the schema does not name', () => {
    const doc = { id: 'a', calls: 3, secret: 'x' };
    const eager = serializerFactory(null)()(route(AGENT));
    const lazy = serializerFactory(new SchemaCompiles())()(route(AGENT));
    expect(lazy(doc)).toBe(eager(doc));
    expect(JSON.parse(lazy(doc))).toEqual({ id: 'a', calls: 3 });
  });

  it('finds a broken response schema at start when eager, at the first response when lazy', () => {
    expect(() => serializerFactory(null)()(route(BROKEN))).toThrow();
    const lazy = serializerFactory(new SchemaCompiles())()(route(BROKEN));
    expect(() => lazy({ id: 'a' })).toThrow();
  });

  it('validates alike either way, and a broken request schema fails at start only when eager', () => {
    for (const compiles of [null, new SchemaCompiles()]) {
      const validate = validatorCompiler(compiles)(part(NAMED));
      expect(validate({ name: 'a' })).toBe(true);
      expect(validate({ name: 5 })).toBe(false);
      expect((validate as unknown as { errors: { instancePath: string }[] }).errors[0]?.instancePath).toBe(
        '/name',
      );
      // Fastify hands the request as the parent only to a function with a schemaEnv.
      expect((validate as unknown as { schemaEnv?: unknown }).schemaEnv).toBeTruthy();
    }
    expect(() => validatorCompiler(null)(part(BROKEN))).toThrow();
    const lazy = validatorCompiler(new SchemaCompiles())(part(BROKEN));
    expect(() => lazy({ id: 'a' })).toThrow();
  });
});

describe('the warm-up', () => {
  it('compiles what no request has, one schema per turn of the event loop', async () => {
    const compiles = new SchemaCompiles();
    const serialize = serializerFactory(compiles)()(route(AGENT));
    validatorCompiler(compiles)(part(NAMED));
    validatorCompiler(compiles)(part({ type: 'object' }));
    serialize({ id: 'a' });
    expect(compiles.pending).toBe(2); // the serializer was used

    // Something else due on each turn (a frame to send, a request) gets every turn in between.
    const turns: number[] = [];
    let turning = true;
    const turn = () => {
      turns.push(compiles.pending);
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    await compiles.warm(new AbortController().signal, (err) => expect.fail(String(err)));
    turning = false;
    expect(compiles.pending).toBe(0);
    expect(turns).toEqual([2, 1]); // one turn before each compile
  });

  it('stops when aborted, and hands over a schema that does not compile', async () => {
    const compiles = new SchemaCompiles();
    const validate = validatorCompiler(compiles)(part(BROKEN));
    validatorCompiler(compiles)(part(NAMED));
    const failures: unknown[] = [];
    const stop = new AbortController();
    const warming = compiles.warm(stop.signal, (err) => {
      failures.push(err);
      stop.abort();
    });
    await warming;
    expect(failures).toHaveLength(1);
    expect(compiles.pending).toBe(1); // aborted before the second
    expect(() => validate({ id: 'a' })).toThrow(); // its route still fails, on use
  });
});
