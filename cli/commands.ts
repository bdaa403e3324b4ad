import { parseArgs } from 'node:util';
import { DEFAULT_MAX_CONCURRENT_CALLS, migrateStore, openStore } from '../src/app.ts';
import { loadConfig, PLANS, type Plan } from '../src/core/index.ts';
import { serve } from '../src/main.ts';

export const USAGE = `usage: parley <command> [options]

commands:
  serve                                   run the server (HOST, PORT, PARLEY_* settings)
  migrate                                 apply database migrations and exit
  workspaces create --name N [--plan standard|enterprise] [--max-concurrent-calls K]
                                          create a workspace; prints its id and a new API key as JSON
  workspaces list                         list top-level workspaces as JSON
  keys create --workspace ID [--name N]   create another API key for a workspace (JSON)

The store is the one the server uses: PARLEY_DATABASE_URL, else the file under PARLEY_DATA_DIR.
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function options<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], spec: T) {
  try {
    return parseArgs({ args, options: spec, allowPositionals: false, strict: true }).values;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

async function withStore<T>(fn: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const store = await openStore(loadConfig());
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function workspacesCreate(args: string[]): Promise<void> {
  const v = options(args, {
    name: { type: 'string' },
    plan: { type: 'string' },
    'max-concurrent-calls': { type: 'string' },
  });
  const name = v.name?.trim();
  if (!name) throw new UsageError('workspaces create needs --name');
  const plan = (v.plan ?? 'enterprise') as Plan;
  if (!PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  const max =
    v['max-concurrent-calls'] === undefined
      ? DEFAULT_MAX_CONCURRENT_CALLS
      : Number(v['max-concurrent-calls']);
  if (!Number.isInteger(max) || max < 1 || max > 10_000) {
    throw new UsageError('--max-concurrent-calls must be an integer from 1 to 10000');
  }
  const result = await withStore((store) =>
    store.transaction(async (repos) => {
      const workspace = await repos.workspaces.create({ name, plan, maxConcurrentCalls: max });
      const key = await repos.apiKeys.create(workspace.id, 'cli');
      return { workspace, secret: key.secret };
    }),
  );
  print({
    workspace_id: result.workspace.id,
    api_key: result.secret,
    name: result.workspace.name,
    plan: result.workspace.plan,
    max_concurrent_calls: result.workspace.maxConcurrentCalls,
  });
}

async function workspacesList(args: string[]): Promise<void> {
  options(args, {});
  const rows = await withStore((store) => store.workspaces.listTopLevel());
  print(
    rows.map((w) => ({
      workspace_id: w.id,
      name: w.name,
      plan: w.plan,
      max_concurrent_calls: w.maxConcurrentCalls,
    })),
  );
}

async function keysCreate(args: string[]): Promise<void> {
  const v = options(args, { workspace: { type: 'string' }, name: { type: 'string' } });
  if (!v.workspace) throw new UsageError('keys create needs --workspace');
  const workspaceId = v.workspace;
  const created = await withStore(async (store) => {
    const workspace = await store.workspaces.get(workspaceId);
    if (!workspace) throw new Error(`workspace ${workspaceId} not found`);
    return store.apiKeys.create(workspace.id, v.name ?? 'cli');
  });
  print({ workspace_id: workspaceId, key_id: created.apiKey.id, api_key: created.secret });
}

async function migrate(args: string[]): Promise<void> {
  options(args, {});
  print(await migrateStore(loadConfig()));
}

export async function runCommand(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  switch (command) {
    case 'serve':
      options(sub === undefined ? [] : [sub, ...rest], {});
      return serve();
    case 'migrate':
      return migrate(sub === undefined ? [] : [sub, ...rest]);
    case 'workspaces':
      if (sub === 'create') return workspacesCreate(rest);
      if (sub === 'list') return workspacesList(rest);
      throw new UsageError(`unknown workspaces command: ${sub ?? '(none)'}`);
    case 'keys':
      if (sub === 'create') return keysCreate(rest);
      throw new UsageError(`unknown keys command: ${sub ?? '(none)'}`);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}
