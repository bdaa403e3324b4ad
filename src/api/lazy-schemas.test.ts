import { describe, expect, it } from 'vitest';
import { serializerFactory } from './lazy-schemas.ts';
import { validatorCompiler } from './validation.ts';

const route = (schema: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema });
const AGENT = { type: 'object', properties: { id: { type: 'string' }, calls: { type: 'integer' } } };
const BROKEN = { type: 'object', properties: { id: { type: 'no-such-type' } } };

describe('schemas compiled on first use', () => {
  it('serializes as the eager serializer does, dropping what the schema does not name', () => {
    const doc = { id: 'a', calls: 3, secret: 'x' };
    const eager = serializerFactory(true)()(route(AGENT));
    const lazy = serializerFactory(false)()(route(AGENT));
    expect(lazy(doc)).toBe(eager(doc));
    expect(JSON.parse(lazy(doc))).toEqual({ id: 'a', calls: 3 });
  });

  it('finds a broken response schema at start when eager, at the first response when lazy', () => {
    expect(() => serializerFactory(true)()(route(BROKEN))).toThrow();
    const lazy = serializerFactory(false)()(route(BROKEN));
    expect(() => lazy({ id: 'a' })).toThrow();
  });

  it('validates alike either way, and a broken request schema fails at start only when eager', () => {
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    for (const eager of [true, false]) {
      const validate = validatorCompiler(eager)({ schema, method: 'POST', url: '/x', httpPart: 'body' });
      expect(validate({ name: 'a' })).toBe(true);
      expect(validate({ name: 5 })).toBe(false);
      expect((validate as unknown as { errors: { instancePath: string }[] }).errors[0]?.instancePath).toBe(
        '/name',
      );
      // Fastify hands the request as the parent only to a function with a schemaEnv.
      expect((validate as unknown as { schemaEnv?: unknown }).schemaEnv).toBeTruthy();
    }
    const broken = { schema: BROKEN, method: 'POST', url: '/x', httpPart: 'body' };
    expect(() => validatorCompiler(true)(broken)).toThrow();
    const lazy = validatorCompiler(false)(broken);
    expect(() => lazy({ id: 'a' })).toThrow();
  });
});
