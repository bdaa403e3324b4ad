import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';

// End-to-end harness: runs the real `parley` command (bin/parley.js) as a child process against a
// real store: a fresh data dir for SQLite, a fresh database for PostgreSQL.

const BIN = resolve(import.meta.dirname, '../../bin/parley.js');
/** What `npm start` runs: `parley serve` from the build in dist/ (the global setup keeps it fresh). */
const START = resolve(import.meta.dirname, '../../bin/start.js');

export interface Deployment {
  name: 'sqlite' | 'postgres';
  env: Record<string, string>;
  dataDir: string;
  cleanup(): Promise<void>;
}

export async function sqliteDeployment(): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  return {
    name: 'sqlite',
    env: { PARLEY_DATA_DIR: dataDir },
    dataDir,
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

export async function postgresDeployment(adminUrl: string): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  const db = `parley_e2e_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${db}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${db}`;
  return {
    name: 'postgres',
    env: { PARLEY_DATA_DIR: dataDir, PARLEY_DATABASE_URL: url.toString() },
    dataDir,
    cleanup: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${db} with (force)`);
      await c.end();
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? res(address.port) : rej(new Error('no port')),
      );
    });
  });
}

export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  // The parent's own settings must not leak into the child.
  for (const key of Object.keys(base))
    if (key.startsWith('PARLEY_') || key === 'PORT' || key === 'HOST') delete base[key];
  // Several servers run at once: each takes a free SIP port unless the test names one.
  return { ...base, PARLEY_LOG_LEVEL: 'info', PARLEY_SIP_PORT: '0', ...env };
}

export interface RunningServer {
  url: string;
  /** Every stdout line so far (JSON log lines and plain announcements). */
  lines: string[];
  child: ChildProcessWithoutNullStreams;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [START], {
    env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const listening = new Promise<void>((res, rej) => {
    const rl = createInterface({ input: child.stdout });
    rl.on('line', (line) => {
      lines.push(line);
      if (line.includes('"parley listening"')) res();
    });
    void exited.then((code) => rej(new Error(`server exited with ${code} before listening: ${stderr}`)));
  });
  await listening;
  return {
    url: `http://127.0.0.1:${port}`,
    lines,
    child,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
  return { code, stdout, stderr };
}

export async function http(
  base: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON (metrics, docs)
  }
  return { status: res.status, json, headers: res.headers };
}
