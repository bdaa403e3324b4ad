import { parseArgs } from 'node:util';
import type { Role } from '../src/app.ts';
import { loadConfig, PLANS, type Plan } from '../src/core/index.ts';

export const USAGE = `usage: parley <command> [options]

commands:
  serve [--role all|api|worker]           run the server (HOST, PORT, PARLEY_* settings); api: the API
                                          only, worker: calls, campaigns and webhooks only (health and
                                          metrics on PORT); all (default): both
  migrate                                 apply database migrations and exit
  workspaces create --name N [--plan standard|enterprise] [--max-concurrent-calls K]
                                          create a workspace; prints its id and a new API key as JSON
  workspaces list                         list top-level workspaces as JSON
  keys create --workspace ID [--name N]   create another API key for a workspace (JSON)
  batch upload --agent MODEL_ID --from NUMBER [--name N] [--trigger MS] [--reserved-concurrency K] FILE.csv
  batch upload --batch BATCH_ID FILE.csv
                                          call every row of a CSV (to_phone_number or phone, number;
                                          lead_name, lead_email, override_model_id, id; other columns
                                          become custom_variables) as one batch; prints the batch (JSON)
  batch watch BATCH_ID [--interval-ms 1000] [--once]
                                          follow a batch's counters until it is completed or canceled;
                                          prints the batch (JSON)
  mcp [--url U] [--key K]                 the MCP server over stdio (tools for agents, calls, campaigns,
                                          chats and simulations), acting with that key; over HTTP it is
                                          POST /v2/mcp on the server

The store is the one the server uses: PARLEY_DATABASE_URL, else the file under PARLEY_DATA_DIR.
The batch and mcp commands talk to a running server instead: --url (else PARLEY_URL, else http://HOST:PORT)
with --key (else PARLEY_API_KEY, else the key in PARLEY_DATA_DIR/bootstrap-api-key).
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

// The server's code is loaded only by the commands that need it: `parley batch` is an HTTP client
// and starts in a fraction of the time.
const app = () => import('../src/app.ts');

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

async function withStore<T>(
  fn: (store: Awaited<ReturnType<Awaited<ReturnType<typeof app>>['openStore']>>) => Promise<T>,
): Promise<T> {
  const store = await (await app()).openStore(loadConfig());
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
      ? (await app()).DEFAULT_MAX_CONCURRENT_CALLS
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
  print(await (await app()).migrateStore(loadConfig()));
}

export async function runCommand(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const v = options(sub === undefined ? [] : [sub, ...rest], { role: { type: 'string' } });
      const role = (v.role ?? 'all') as Role;
      const { ROLES } = await app();
      if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      return (await import('../src/main.ts')).serve(role);
    }
    case 'migrate':
      return migrate(sub === undefined ? [] : [sub, ...rest]);
    case 'workspaces':
      if (sub === 'create') return workspacesCreate(rest);
      if (sub === 'list') return workspacesList(rest);
      throw new UsageError(`unknown workspaces command: ${sub ?? '(none)'}`);
    case 'keys':
      if (sub === 'create') return keysCreate(rest);
      throw new UsageError(`unknown keys command: ${sub ?? '(none)'}`);
    case 'batch':
      return (await import('./batch.ts')).runBatch(sub, rest, (m) => new UsageError(m));
    case 'mcp':
      return (await import('./mcp.ts')).runMcp(
        sub === undefined ? [] : [sub, ...rest],
        (m) => new UsageError(m),
      );
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}
