import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApi } from './api/index.ts';
import { createLogger, systemClock, type Clock, type Config, type Logger } from './core/index.ts';
import type { MessagingDeps } from './runtime/index.ts';
import {
  createBuiltinLLM,
  createModelRouter,
  createOpenAILLM,
  createSimMessaging,
  createTwilioInboundParser,
  createTwilioMessaging,
  type ModelRouter,
} from './providers/index.ts';
export { DEFAULT_MAX_CONCURRENT_CALLS } from './store/index.ts';
import {
  bootstrapWorkspace,
  createStore,
  type BootstrapResult,
  type DatabaseOptions,
  type Store,
} from './store/index.ts';

// The composition root: the only place that chooses implementations (which store dialect, later
// which carriers and providers) and wires them together. Tests pass `overrides` to swap parts.

export const BOOTSTRAP_KEY_FILE = 'bootstrap-api-key';

export interface AppOverrides {
  clock?: Clock;
  logger?: Logger;
  /** Where the generated bootstrap key is announced; default: one line on stdout. */
  announce?: (line: string) => void;
  /** Which models run agents; default: from `config.llm` (see modelRouter). */
  models?: ModelRouter;
  /** Text-message adapters; default: the sim, plus Twilio when `config.twilio` is set. */
  messaging?: MessagingDeps;
}

export interface App {
  readonly config: Config;
  readonly store: Store;
  readonly api: FastifyInstance;
  readonly logger: Logger;
  readonly bootstrap: BootstrapResult;
  /** Listens on the configured host and port; resolves to the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export function storeOptions(config: Config): DatabaseOptions {
  return config.databaseUrl
    ? { dialect: 'postgres', url: config.databaseUrl }
    : { dialect: 'sqlite', file: join(config.dataDir, 'parley.db') };
}

/** Opens the configured store and brings its schema up to date. */
export async function openStore(config: Config, clock: Clock = systemClock): Promise<Store> {
  const store = await createStore(storeOptions(config), clock);
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** Applies pending migrations and reports which ran (`parley migrate`). */
export async function migrateStore(config: Config): Promise<{ store: string; applied: string[] }> {
  const store = await createStore(storeOptions(config), systemClock);
  try {
    const { applied } = await store.migrate();
    return { store: store.dialect, applied };
  } finally {
    await store.close();
  }
}

/**
 * The configured OpenAI-compatible endpoint serves the platform and named models; without one,
 * the offline builtin model (docs/builtin-model.md) is the platform model.
 */
export function modelRouter(config: Config): ModelRouter {
  const llm = config.llm;
  if (!llm) return createModelRouter({ platform: createBuiltinLLM() });
  return createModelRouter({
    platform: createOpenAILLM({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, model: llm.model }),
    named: (model) => createOpenAILLM({ ...llm, model }),
  });
}

/** The sim serves every number not on Twilio; Twilio serves `twilio` numbers when configured. */
export function messagingAdapters(config: Config, clock: Clock = systemClock): MessagingDeps {
  const twilio = config.twilio;
  return {
    sim: createSimMessaging({ clock }),
    ...(twilio
      ? {
          twilio: {
            messaging: createTwilioMessaging(twilio),
            inbound: createTwilioInboundParser({ authToken: twilio.authToken }),
          },
        }
      : {}),
  };
}

function writeBootstrapKey(dataDir: string, secret: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, BOOTSTRAP_KEY_FILE);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

export async function createApp(config: Config, overrides: AppOverrides = {}): Promise<App> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, logPii: config.logPii });
  const announce = overrides.announce ?? ((line: string) => process.stdout.write(`${line}\n`));

  const store = await openStore(config, clock);
  let api: FastifyInstance | undefined;
  try {
    const bootstrap = await bootstrapWorkspace(store, config.bootstrapApiKey);
    if (bootstrap.kind === 'created') {
      logger.info({ workspace_id: bootstrap.workspaceId }, 'created the default workspace');
      if (bootstrap.generated) {
        const file = writeBootstrapKey(config.dataDir, bootstrap.secret);
        // Printed once, outside the structured log, which must never hold secrets.
        announce(`Parley API key (shown once, also saved to ${file}): ${bootstrap.secret}`);
      }
    }
    api = await buildApi({
      store,
      logger,
      publicUrl: config.publicUrl,
      bodyLimitBytes: config.bodyLimitBytes,
      models: overrides.models ?? modelRouter(config),
      messaging: overrides.messaging ?? messagingAdapters(config, clock),
      publicRateLimit: { requests: config.publicRateLimitPerMinute, windowMs: 60_000 },
      trustProxy: config.trustProxy,
      allowPrivateNetwork: config.allowPrivateNetwork,
    });
    await api.ready();
    const ready = api;
    return {
      config,
      store,
      api: ready,
      logger,
      bootstrap,
      async listen() {
        return ready.listen({ host: config.host, port: config.port });
      },
      async close() {
        await ready.close();
        await store.close();
      },
    };
  } catch (err) {
    await api?.close();
    await store.close();
    throw err;
  }
}
