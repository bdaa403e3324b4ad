// A minimal WASI preview1 host for one run of the flite command (the 13 imports flite.wasm
// uses), instead of `node:wasi`: Node 20's WASI crashes the whole process (SIGSEGV) when
// flite.wasm runs repeatedly (reproduced here within 20-40 runs of the rms voice; reported as
// nodejs/node#52402). This host reads `memory.buffer` afresh on every call (the memory grows
// during a run), keeps files in memory (no temp dir) and prints no ExperimentalWarning.
import { wasm, type WasmMemory, type WasmModule } from './tts-flite-wasm.ts';

const ERRNO = { success: 0, badf: 8, exist: 20, inval: 28, isdir: 31, noent: 44, nosys: 52, spipe: 70 };
const FILETYPE = { characterDevice: 2, directory: 3, regularFile: 4 };
const OFLAGS = { creat: 1, directory: 2, excl: 4, trunc: 8 };
const FDFLAGS_APPEND = 1;
const PREOPEN_FD = 3;
const STDIO_CAPTURE_LIMIT = 64 * 1024;

/** flite called `exit()`; unwinds the wasm stack. */
class WasiExit {
  constructor(readonly code: number) {}
}

/** A growable in-memory file. */
class MemoryFile {
  bytes = new Uint8Array(0);
  size = 0;

  write(at: number, data: Uint8Array): void {
    const end = at + data.length;
    if (end > this.bytes.length) {
      const grown = new Uint8Array(Math.max(end, this.bytes.length * 2, 4096));
      grown.set(this.bytes.subarray(0, this.size));
      this.bytes = grown;
    }
    this.bytes.set(data, at);
    this.size = Math.max(this.size, end);
  }

  contents(): Uint8Array {
    return this.bytes.subarray(0, this.size);
  }
}

interface OpenFile {
  file: MemoryFile;
  position: number;
  append: boolean;
}

export interface WasiRunResult {
  exitCode: number;
  /** Files the program wrote, by path under the preopened root (e.g. `out.wav`). */
  files: Map<string, Uint8Array>;
  /** What it printed, truncated to 64 KiB each. */
  stdout: string;
  stderr: string;
}

/**
 * Runs a WASI command module once: `args[0]` is the program name. The only directory is `/`,
 * in memory, holding `files`; what the program writes there is returned.
 */
export function runWasiCommand(
  module: WasmModule,
  args: readonly string[],
  files: ReadonlyMap<string, Uint8Array> = new Map(),
): WasiRunResult {
  const encoder = new TextEncoder();
  const argBytes = args.map((a) => encoder.encode(`${a}\0`));
  const fs = new Map<string, MemoryFile>();
  for (const [path, data] of files) {
    const file = new MemoryFile();
    file.write(0, data);
    fs.set(path, file);
  }
  const open = new Map<number, OpenFile>();
  let nextFd = PREOPEN_FD + 1;
  const stdio = { 1: [] as Uint8Array[], 2: [] as Uint8Array[] };
  const stdioBytes = { 1: 0, 2: 0 };
  let memory: WasmMemory | null = null;

  // Views made per call: the memory may have grown (and its buffer been replaced) since the last.
  const view = () => new DataView(memory!.buffer);
  const bytes = () => new Uint8Array(memory!.buffer);

  /** The (pointer, length) pairs of an iovec array. */
  function iovecs(ptr: number, count: number): Array<[number, number]> {
    const dv = view();
    const out: Array<[number, number]> = [];
    for (let i = 0; i < count; i += 1) {
      out.push([dv.getUint32(ptr + i * 8, true), dv.getUint32(ptr + i * 8 + 4, true)]);
    }
    return out;
  }

  const imports = {
    args_sizes_get(argcPtr: number, bufSizePtr: number): number {
      const dv = view();
      dv.setUint32(argcPtr, argBytes.length, true);
      dv.setUint32(
        bufSizePtr,
        argBytes.reduce((n, a) => n + a.length, 0),
        true,
      );
      return ERRNO.success;
    },
    args_get(argvPtr: number, bufPtr: number): number {
      const dv = view();
      const mem = bytes();
      let at = bufPtr;
      argBytes.forEach((arg, i) => {
        dv.setUint32(argvPtr + i * 4, at, true);
        mem.set(arg, at);
        at += arg.length;
      });
      return ERRNO.success;
    },
    clock_time_get(id: number, _precision: bigint, timePtr: number): number {
      const ns = id === 0 ? BigInt(Date.now()) * 1_000_000n : process.hrtime.bigint();
      view().setBigUint64(timePtr, ns, true);
      return ERRNO.success;
    },
    fd_close(fd: number): number {
      return open.delete(fd) ? ERRNO.success : ERRNO.badf;
    },
    fd_fdstat_get(fd: number, statPtr: number): number {
      let type: number;
      if (fd <= 2) type = FILETYPE.characterDevice;
      else if (fd === PREOPEN_FD) type = FILETYPE.directory;
      else if (open.has(fd)) type = FILETYPE.regularFile;
      else return ERRNO.badf;
      const dv = view();
      dv.setUint8(statPtr, type);
      dv.setUint16(statPtr + 2, 0, true);
      dv.setBigUint64(statPtr + 8, 0xffff_ffff_ffff_ffffn, true);
      dv.setBigUint64(statPtr + 16, 0xffff_ffff_ffff_ffffn, true);
      return ERRNO.success;
    },
    fd_fdstat_set_flags(fd: number, flags: number): number {
      const file = open.get(fd);
      if (!file) return fd <= 2 ? ERRNO.success : ERRNO.badf;
      file.append = (flags & FDFLAGS_APPEND) !== 0;
      return ERRNO.success;
    },
    fd_prestat_get(fd: number, prestatPtr: number): number {
      if (fd !== PREOPEN_FD) return ERRNO.badf;
      const dv = view();
      dv.setUint8(prestatPtr, 0); // a directory
      dv.setUint32(prestatPtr + 4, 1, true); // the length of "/"
      return ERRNO.success;
    },
    fd_prestat_dir_name(fd: number, pathPtr: number, pathLen: number): number {
      if (fd !== PREOPEN_FD) return ERRNO.badf;
      if (pathLen < 1) return ERRNO.inval;
      bytes()[pathPtr] = 0x2f; // "/"
      return ERRNO.success;
    },
    fd_read(fd: number, iovsPtr: number, iovsLen: number, nreadPtr: number): number {
      let total = 0;
      if (fd !== 0) {
        const handle = open.get(fd);
        if (!handle) return fd <= 2 ? ERRNO.badf : fd === PREOPEN_FD ? ERRNO.isdir : ERRNO.badf;
        const mem = bytes();
        for (const [ptr, len] of iovecs(iovsPtr, iovsLen)) {
          const chunk = handle.file
            .contents()
            .subarray(handle.position, Math.min(handle.file.size, handle.position + len));
          mem.set(chunk, ptr);
          handle.position += chunk.length;
          total += chunk.length;
          if (chunk.length < len) break;
        }
      }
      view().setUint32(nreadPtr, total, true);
      return ERRNO.success;
    },
    fd_seek(fd: number, offset: bigint, whence: number, newOffsetPtr: number): number {
      const handle = open.get(fd);
      if (!handle) return fd <= 2 ? ERRNO.spipe : ERRNO.badf;
      const base = whence === 0 ? 0 : whence === 1 ? handle.position : handle.file.size;
      const position = base + Number(offset);
      if (whence > 2 || position < 0) return ERRNO.inval;
      handle.position = position;
      view().setBigUint64(newOffsetPtr, BigInt(position), true);
      return ERRNO.success;
    },
    fd_write(fd: number, iovsPtr: number, iovsLen: number, nwrittenPtr: number): number {
      let total = 0;
      const mem = bytes();
      if (fd === 1 || fd === 2) {
        for (const [ptr, len] of iovecs(iovsPtr, iovsLen)) {
          if (stdioBytes[fd] < STDIO_CAPTURE_LIMIT) {
            stdio[fd].push(mem.slice(ptr, ptr + Math.min(len, STDIO_CAPTURE_LIMIT - stdioBytes[fd])));
            stdioBytes[fd] += len;
          }
          total += len;
        }
      } else {
        const handle = open.get(fd);
        if (!handle) return ERRNO.badf;
        for (const [ptr, len] of iovecs(iovsPtr, iovsLen)) {
          if (handle.append) handle.position = handle.file.size;
          handle.file.write(handle.position, mem.subarray(ptr, ptr + len));
          handle.position += len;
          total += len;
        }
      }
      view().setUint32(nwrittenPtr, total, true);
      return ERRNO.success;
    },
    path_open(
      dirFd: number,
      _dirFlags: number,
      pathPtr: number,
      pathLen: number,
      oflags: number,
      _rightsBase: bigint,
      _rightsInheriting: bigint,
      fdflags: number,
      fdPtr: number,
    ): number {
      if (dirFd !== PREOPEN_FD) return ERRNO.badf;
      const path = new TextDecoder().decode(bytes().subarray(pathPtr, pathPtr + pathLen));
      if (oflags & OFLAGS.directory) return ERRNO.nosys;
      let file = fs.get(path);
      if (file && oflags & OFLAGS.creat && oflags & OFLAGS.excl) return ERRNO.exist;
      if (!file) {
        if (!(oflags & OFLAGS.creat)) return ERRNO.noent;
        file = new MemoryFile();
        fs.set(path, file);
      }
      if (oflags & OFLAGS.trunc) file.size = 0;
      const fd = nextFd;
      nextFd += 1;
      open.set(fd, { file, position: 0, append: (fdflags & FDFLAGS_APPEND) !== 0 });
      view().setUint32(fdPtr, fd, true);
      return ERRNO.success;
    },
    proc_exit(code: number): never {
      throw new WasiExit(code);
    },
  };

  const instance = new wasm.Instance(module, { wasi_snapshot_preview1: imports });
  const exported = instance.exports as { memory?: WasmMemory; _start?: () => void };
  if (!exported.memory || typeof exported._start !== 'function') {
    throw new Error('not a WASI command module (no memory or _start export)');
  }
  memory = exported.memory;
  let exitCode = 0;
  try {
    exported._start();
  } catch (err) {
    if (!(err instanceof WasiExit)) throw err;
    exitCode = err.code;
  }
  const decode = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('utf8');
  const written = new Map<string, Uint8Array>();
  for (const [path, file] of fs) written.set(path, file.contents());
  return { exitCode, files: written, stdout: decode(stdio[1]), stderr: decode(stdio[2]) };
}
