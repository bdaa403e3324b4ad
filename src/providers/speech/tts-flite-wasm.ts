// The part of the WebAssembly JS API flite needs, typed here: TypeScript declares WebAssembly
// only in its DOM library, which this Node project does not load.

/** A compiled module; compiled once, instantiated per run, posted to workers as is. */
export interface WasmModule {
  readonly __wasmModule?: never;
}

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

/** Import functions by module name, then by name. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type WasmImports = Record<string, Record<string, Function>>;

interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: WasmImports) => WasmInstance;
  Memory: abstract new (...args: never[]) => WasmMemory;
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
