// Shared benchmark plumbing: child servers, temp dirs, cleanup, load runs and RESULTS.md sections.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS_FILE = join(ROOT, 'bench', 'RESULTS.md');
const HOST = '127.0.0.1';

// ---- cleanup -------------------------------------------------------------------------------------

type Cleanup = () => void | Promise<void>;
const cleanups: Cleanup[] = [];
const children = new Set<ChildProcess>();

/** Registers work to undo at the end of the run (run last-in first-out, even on failure). */
export function onCleanup(fn: Cleanup): void {
  cleanups.push(fn);
}

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (err) {
      console.error('cleanup failed:', err);
    }
  }
}

// Last resort when the process leaves without running the cleanups (crash, watchdog exit).
process.on('exit', () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `parley-bench-${prefix}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// ---- child servers -------------------------------------------------------------------------------

export interface ChildServer {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1, as the OS hands it out. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

/**
 * Spawns `node [nodeArgs] bin/tsx-run.js script` with `env` added to this process's environment
 * and resolves once it prints `LISTENING <url>`. Other output is forwarded to stderr, prefixed.
 */
export async function startServer(opts: {
  name: string;
  script: string;
  env: Record<string, string>;
  nodeArgs?: string[];
  startTimeoutMs?: number;
}): Promise<ChildServer> {
  const { name, script } = opts;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), 'bin/tsx-run.js', script], {
    cwd: ROOT,
    env: { ...process.env, HOST, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await waitForExit(child, 5000))) {
        child.kill('SIGKILL');
        await waitForExit(child, 2000);
      }
    }
    children.delete(child);
  };
  onCleanup(stop);

  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${opts.startTimeoutMs ?? 20_000} ms`)),
      opts.startTimeoutMs ?? 20_000,
    );
    let pending = '';
    let found = false;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const m = /^LISTENING (\S+)$/.exec(line);
        if (m && !found) {
          found = true;
          clearTimeout(timer);
          resolveUrl(m[1]!);
        } else if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
      }
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!found) reject(new Error(`${name} exited before listening (code ${code}, signal ${signal})`));
    });
  });
  const { hostname } = new URL(url);
  if (hostname !== HOST) throw new Error(`${name} listens on ${url}, expected ${HOST}`);
  return { name, url, pid: child.pid!, stop };
}

/** The bootstrap key the bench's Parley servers are started with. */
export const BENCH_API_KEY = 'pk_bench_0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * A Parley server script in a child process, on SQLite in a fresh temp data dir, logging warnings
 * only, with BENCH_API_KEY as its key (BENCH_PARLEY_NODE_ARGS adds node flags, e.g. --cpu-prof).
 */
export async function startParley(name: string, script: string): Promise<ChildServer & { dataDir: string }> {
  const dataDir = tempDir(`${name}-data`);
  const server = await startServer({
    name,
    script,
    nodeArgs: process.env.BENCH_PARLEY_NODE_ARGS?.split(/\s+/).filter(Boolean),
    env: {
      PORT: String(await freePort()),
      PARLEY_DATA_DIR: dataDir,
      PARLEY_DATABASE_URL: '',
      PARLEY_BOOTSTRAP_API_KEY: BENCH_API_KEY,
      PARLEY_LOG_LEVEL: 'warn',
      // The platform around calls is measured here; the voice case measures the voice.
      PARLEY_SIM_MODE: 'text',
    },
  });
  console.log(`${name} listening on ${server.url} (pid ${server.pid}), data dir ${dataDir}`);
  return { ...server, dataDir };
}

// ---- load ----------------------------------------------------------------------------------------

export interface LoadSettings {
  connections: number;
  durationS: number;
  warmupS: number;
}

export function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function loadSettings(): LoadSettings {
  return {
    durationS: intEnv('BENCH_DURATION_S', 10, 1, 600),
    connections: intEnv('BENCH_CONNECTIONS', 10, 1, 1000),
    warmupS: intEnv('BENCH_WARMUP_S', 2, 0, 60),
  };
}

export interface Measurement {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

function measurement(r: Result): Measurement {
  return {
    reqPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    total: r.requests.total,
    ok2xx: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

/** A warm-up run (discarded) then a measured run of GET `url` with autocannon. */
export async function measure(
  url: string,
  headers: Record<string, string>,
  settings: LoadSettings,
): Promise<{ warmup: Measurement | null; result: Measurement }> {
  const { hostname } = new URL(url);
  if (hostname !== HOST) throw new Error(`refusing to load ${url}: only ${HOST} is allowed`);
  const base = { url, headers, connections: settings.connections, timeout: 10 };
  const warmup =
    settings.warmupS > 0 ? measurement(await autocannon({ ...base, duration: settings.warmupS })) : null;
  const result = measurement(await autocannon({ ...base, duration: settings.durationS }));
  return { warmup, result };
}

// ---- reporting -----------------------------------------------------------------------------------

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const memGiB = (totalmem() / 2 ** 30).toFixed(1);
  return `${availableParallelism()} CPUs (nproc), ${cpu}, ${memGiB} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** A markdown table from a header row and data rows. */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A plain-text table for the console. */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const RESULTS_HEADER = `# Parley benchmarks

Generated by \`npm run bench\` (bench/run.ts); each case rewrites only its own section below.
Do not edit by hand.
`;

/** Replaces (or appends) the section of `caseName` in bench/RESULTS.md. */
export function writeResultsSection(caseName: string, body: string): void {
  const begin = `<!-- bench:${caseName}:begin -->`;
  const end = `<!-- bench:${caseName}:end -->`;
  const section = `${begin}\n${body.trim()}\n${end}`;
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : RESULTS_HEADER;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) {
    text = text.slice(0, from) + section + text.slice(to + end.length);
  } else {
    text = `${text.trimEnd()}\n\n${section}\n`;
  }
  writeFileSync(RESULTS_FILE, text);
}

/** A comma-separated choice of `known` names from `name` (default all of them). */
export function partsEnv<T extends string>(name: string, known: readonly T[]): Set<T> {
  const raw = process.env[name];
  const parts = new Set((raw ? raw.split(',') : known).map((p) => p.trim()));
  for (const p of parts)
    if (!(known as readonly string[]).includes(p))
      throw new Error(`${name}: unknown part "${p}" (known: ${known.join(', ')})`);
  return parts as Set<T>;
}

/** Comma-separated numbers of calls from `name` (default `fallback`). */
export function stepsEnv(name: string, fallback: string): number[] {
  const raw = process.env[name] ?? fallback;
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.some((n) => !Number.isInteger(n) || n < 1 || n > 2000))
    throw new Error(`${name} must be whole numbers of calls, got "${raw}"`);
  return steps;
}
