import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

// Fastify compiles every route's response serializers (and validators) when it starts: about
// three seconds for this API, paid by every `parley serve` and CLI command and every test that
// builds the API, for routes most of them never call. Compiled on a route's first use instead,
// once; `eager` keeps the start-up compile, so one test still proves that every schema compiles.

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** Fastify's own serializer factory (fast-json-stringify), each serializer built on first use. */
export function serializerFactory(eager: boolean): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    if (eager) return compile;
    return (route) => {
      let serialize: ((doc: unknown) => string) | null = null;
      return (doc) => (serialize ??= compile(route))(doc);
    };
  };
}
