import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

// Fastify compiles every route's response serializers (and validators) when it starts: about
// three seconds for this API, paid by every `parley serve` and CLI command and every test that
// builds the API, for routes most of them never call. Compiled on a route's first use instead,
// once; `eager` keeps the start-up compile, so one test still proves that every schema compiles.
// A server that listens compiles the rest in the background (`warm`), one schema per turn of the
// event loop, so a route first called during live calls does not stall their audio to compile.

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** The schemas of one API not compiled yet. */
export class SchemaCompiles {
  readonly #pending = new Set<() => void>();

  /** `compile`, run once: on the first call of what this returns, or by `warm`. */
  once<T>(compile: () => T): () => T {
    let compiled: { value: T } | null = null;
    const run = (): T => {
      if (compiled === null) {
        compiled = { value: compile() };
        this.#pending.delete(run);
      }
      return compiled.value;
    };
    this.#pending.add(run);
    return run;
  }

  /** Schemas neither used nor warmed yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Compiles what is left, one schema per turn of the event loop (requests and calls go on in
   * between). A schema that does not compile is left to fail its route's first request, and
   * handed to `failed`.
   */
  async warm(signal: AbortSignal, failed: (err: unknown) => void): Promise<void> {
    const left = [...this.#pending];
    for (const run of left) {
      await new Promise((resolve) => setImmediate(resolve));
      if (signal.aborted) return;
      try {
        run();
      } catch (err) {
        this.#pending.delete(run);
        failed(err);
      }
    }
  }
}

/** Fastify's own serializer factory (fast-json-stringify); lazy with `compiles`, else eager. */
export function serializerFactory(compiles: SchemaCompiles | null): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    if (compiles === null) return compile;
    return (route) => {
      const serializer = compiles.once(() => compile(route));
      return (doc) => serializer()(doc);
    };
  };
}
