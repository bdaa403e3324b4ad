import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import pg from 'pg';
import { childEnv, freePort, http, runCli } from './harness.ts';

// Helpers of the campaign end-to-end tests (campaign-crash, campaign-workers): real `parley serve`
// processes with a role and a node name, killed with SIGKILL when a test says so and always in
// the end (each child also has its own time limit), a fresh store per run, and a direct read-only
// view of that store for the invariants the API does not show (calls per recipient, nodes, slots).

const BIN = resolve(import.meta.dirname, '../../bin/parley.js');

/** Every child started here and not yet gone: killed by `killAll` and when this process exits. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface TestStore {
  name: 'sqlite' | 'postgres';
  /** The environment every process of this store gets (PARLEY_DATA_DIR, PARLEY_DATABASE_URL). */
  env: Record<string, string>;
  /** Opens a connection for reading the store directly. */
  reader(): Promise<Reader>;
  /** Removes the data dir and drops the database. */
  cleanup(): Promise<void>;
}

export interface Reader {
  /** Runs a query; `?` placeholders (rewritten to `$n` on PostgreSQL). */
  all<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function sqliteStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-campaign-'));
  return {
    name: 'sqlite',
    env: { PARLEY_DATA_DIR: dataDir },
    async reader() {
      const db = new Database(join(dataDir, 'parley.db'), { fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      return {
        all: async <T>(query: string, params: unknown[] = []) => db.prepare(query).all(...params) as T[],
        close: async () => void db.close(),
      };
    },
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A fresh database named `<prefix>_<random>` on the server of `adminUrl`, dropped by cleanup. */
export async function postgresStore(adminUrl: string, prefix: string): Promise<TestStore> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-campaign-'));
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name: 'postgres',
    env: { PARLEY_DATA_DIR: dataDir, PARLEY_DATABASE_URL: url.toString() },
    async reader() {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      return {
        async all<T>(query: string, params: unknown[] = []) {
          let n = 0;
          const text = query.replace(/\?/g, () => `$${++n}`);
          return (await client.query(text, params)).rows as T[];
        },
        close: () => client.end(),
      };
    },
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface Server {
  url: string;
  pid: number;
  node: string;
  /** Every stdout line so far (JSON log lines). */
  lines: string[];
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** SIGKILL (kill -9), resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ServeOptions {
  env: Record<string, string>;
  node: string;
  role?: 'all' | 'api' | 'worker';
  /** The child is killed after this long whatever happens (default 120 s). */
  lifetimeMs?: number;
  /** How long to wait for GET /readyz (default 30 s). */
  readyTimeoutMs?: number;
}

/** Starts `parley serve --role <role>` on a free port and waits until GET /readyz answers ready. */
export async function serve(options: ServeOptions): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--role', options.role ?? 'all'], {
    env: childEnv({
      ...options.env,
      PARLEY_NODE_NAME: options.node,
      PORT: String(port),
      HOST: '127.0.0.1',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const pid = child.pid;
  if (pid === undefined) throw new Error('parley serve did not start');
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  const exited = new Promise<void>((res) => {
    if (child.exitCode !== null || child.signalCode !== null) res();
    else child.once('exit', () => res());
  });
  void exited.then(() => children.delete(child));
  const limit = setTimeout(() => child.kill('SIGKILL'), options.lifetimeMs ?? 120_000);
  limit.unref();
  void exited.then(() => clearTimeout(limit));

  const url = `http://127.0.0.1:${port}`;
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (gone()) throw new Error(`parley serve (${options.node}) exited before it was ready: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`parley serve (${options.node}) was not ready in time: ${stderr}`);
    }
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    await sleep(50);
  }
  return {
    url,
    pid,
    node: options.node,
    lines,
    exited,
    async kill() {
      if (!gone()) process.kill(pid, 'SIGKILL');
      await exited;
    },
    async stop(graceMs = 10_000) {
      if (gone()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Kills every child still running (afterAll). */
export async function killAll(): Promise<void> {
  const all = [...children];
  for (const child of all) child.kill('SIGKILL');
  await Promise.all(
    all.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? undefined
        : new Promise<void>((res) => child.once('exit', () => res())),
    ),
  );
}

export const sleep = (ms: number) => new Promise<void>((res) => setTimeout(res, ms));

/** Polls `check` every `everyMs` until it returns a value other than undefined. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A workspace made with the CLI: its id and key. */
export async function createWorkspace(
  env: Record<string, string>,
  name: string,
  maxConcurrentCalls: number,
): Promise<{ workspaceId: string; key: string }> {
  const out = await runCli(
    ['workspaces', 'create', '--name', name, '--max-concurrent-calls', String(maxConcurrentCalls)],
    env,
  );
  if (out.code !== 0) throw new Error(`workspaces create failed (${out.code}): ${out.stderr}`);
  const created = JSON.parse(out.stdout) as { workspace_id: string; api_key: string };
  return { workspaceId: created.workspace_id, key: created.api_key };
}

/** An API call that must answer 200; its `response`. */
export async function ok(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
): Promise<any> {
  const res = await http(base, method, path, key, body);
  if (res.status !== 200)
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json.response;
}

/** An outbound agent with a sim caller id attached: its model_id. */
export async function campaignAgent(base: string, key: string, from: string): Promise<string> {
  const agent = await ok(base, key, 'POST', '/v2/assistants', {
    type: 'outbound',
    name: 'Campaign',
    agent: { prompt: 'You call {name} about their appointment.', greeting_message: 'Hi {name}!' },
  });
  const modelId = agent.model_id as string;
  await ok(base, key, 'POST', '/v2/custom-numbers', { phone_number: from, provider: 'sim' });
  await ok(base, key, 'PUT', `/v2/assistants/${modelId}/phone_numbers`, { phone_numbers: [from] });
  return modelId;
}

export interface TaskRow {
  task_id: string;
  status: string;
  error_message: string;
  call_id: string | null;
  call_status: string | null;
}

/** Every recipient of a batch through GET /v2/calls/batch/{id}/tasks, page by page. */
export async function allTasks(base: string, key: string, batchId: string): Promise<TaskRow[]> {
  const tasks: TaskRow[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await ok(base, key, 'GET', `/v2/calls/batch/${batchId}/tasks?limit=100&offset=${offset}`);
    tasks.push(...(page.tasks as TaskRow[]));
    if (page.tasks.length < 100) return tasks;
  }
}
