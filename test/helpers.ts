import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { describe } from 'vitest';
import { buildApi } from '../src/api/index.ts';
import { createEngine, openSip, type Engine, type SipSetup, type SpeechSetup } from '../src/app.ts';
import { createSimMessaging } from '../src/providers/index.ts';
import type { MessagingDeps } from '../src/runtime/index.ts';
import {
  silentLogger,
  systemClock,
  type Clock,
  type Plan,
  type SipConfig,
  type SpeechConfig,
  type LoadGate,
} from '../src/core/index.ts';
import { createSpeechRegistry, type SpeechVendorFactories } from '../src/speech/index.ts';
import { createModelRouter, type LLM, type ModelRouter } from '../src/providers/index.ts';
import { createScriptedLLM } from '../src/providers/testing/index.ts';
import type { RateLimitOptions, SchemaCompiles } from '../src/api/index.ts';
import type { HeadroomOptions } from '../src/calls/index.ts';
import type { RecordingStorage, Store, StoreLimits } from '../src/store/index.ts';
import { createMemoryRecordings, storeTargets, type StoreTarget } from '../src/store/testing/index.ts';

// API test harness: the real Fastify app over a real store (one per dialect), driven with
// inject(). `forEachStore` runs a describe block once per dialect.

export { storeTargets, type StoreTarget };

/** The PARLEY_PUBLIC_URL of test APIs (provider webhooks are signed over it). */
export const TEST_PUBLIC_URL = 'http://127.0.0.1:8080';

export interface TestWorkspace {
  id: string;
  key: string;
}

export interface TestApi {
  api: FastifyInstance;
  store: Store;
  /** The model router the API was built with. */
  models: ModelRouter;
  /** Calls, conversations and webhook delivery behind the API (started). */
  engine: Engine;
  /** Where recorded calls go (in memory). */
  recordings: RecordingStorage;
  /** A workspace (enterprise, 10 concurrent calls) and its key. */
  ws: TestWorkspace;
  /** A second, unrelated workspace: its ids must be invisible to `ws`. */
  other: TestWorkspace;
  /** The SIP carrier's port, when the API runs SIP (`sip` option). */
  sipPort: number | null;
  /** The SIP carrier and its media, when the API runs SIP. */
  sip: SipSetup | null;
  /** inject() with `ws`'s key unless `key` is given (null: no Authorization header). */
  call(options: InjectOptions & { key?: string | null }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function createWorkspace(
  store: Store,
  name: string,
  plan: Plan = 'enterprise',
  maxConcurrentCalls = 10,
): Promise<TestWorkspace> {
  const workspace = await store.workspaces.create({ name, plan, maxConcurrentCalls });
  const { secret } = await store.apiKeys.create(workspace.id, 'test');
  return { id: workspace.id, key: secret };
}

/** SIP on loopback: a free port, a random RTP range so parallel test files do not meet. */
const TEST_SIP: SipConfig = {
  listenAddress: '127.0.0.1',
  port: 0,
  transports: ['udp', 'tcp'],
  publicAddress: '127.0.0.1',
  rtpPortMin: 40_000 + Math.floor(Math.random() * 5_000) * 2,
  rtpPortMax: 0,
  ringTimeoutMs: 60_000,
  rtpTimeoutMs: 30_000,
  rateLimitPerSecond: 10,
};
TEST_SIP.rtpPortMax = TEST_SIP.rtpPortMin + 2_000;

export async function createTestApi(
  target: StoreTarget,
  options: {
    clock?: Clock;
    bodyLimitBytes?: number;
    /** The platform model; default a scripted model that always says `OK.` */
    llm?: LLM;
    publicRateLimit?: RateLimitOptions;
    trustProxy?: boolean;
    /** Knowledge sources may be fetched from local servers. */
    allowPrivateNetwork?: boolean;
    /** false: the WebSocket media test call is off (PARLEY_WS_MEDIA=off). */
    wsMedia?: boolean;
    /** How often WS media clients are pinged (default 15 s). */
    wsMediaKeepAliveMs?: number;
    /** The URL the API says it is reached at (links it hands out); default TEST_PUBLIC_URL. */
    publicUrl?: string;
    /** Text-message adapters; default: a sim of its own. */
    messaging?: MessagingDeps;
    /** The sim carrier's pace (default 0: as fast as possible). */
    simSpeed?: number;
    /** Speech for voice calls and the sim's far end; default none (sim calls are text turns). */
    speech?: SpeechSetup;
    /** Webhook delivery tuning. */
    webhooks?: { retryDelaysMs?: readonly number[]; attemptTimeoutMs?: number; pollIntervalMs?: number };
    inboundWebhookTimeoutMs?: number;
    callsPollIntervalMs?: number;
    afterCallConcurrency?: number;
    /** Lower store limits (recipients per batch) to test their edges cheaply. */
    limits?: StoreLimits;
    /** Runs the SIP carrier on loopback (a free port unless given), for calls with SIP peers. */
    sip?: Partial<SipConfig>;
    /** The Twilio carrier's REST base URL (a fake's) and the server's default account. */
    twilio?: { baseUrl: string; server?: { accountSid: string; authToken: string } };
    /** Whether the process is saturated (it then takes no new calls); absent: never. */
    load?: LoadGate;
    /** The headroom: the calls predicted to fit under a busy share of `load` (default no limit). */
    callLoad?: HeadroomOptions;
    /** Compile every route's schemas at start (default: on each route's first use). */
    eagerSchemas?: boolean;
    /** Where the lazy schemas wait for use or the warm-up after listen. */
    schemaCompiles?: SchemaCompiles;
    /** How long a key's workspace is remembered (default 1 s); 0 for tests that edit workspaces in the store. */
    authCacheTtlMs?: number;
    /** Hosted speech vendors (the speech registry); absent: no registry, every call on `speech`. */
    speechVendors?: { config: SpeechConfig; factories: SpeechVendorFactories };
  } = {},
): Promise<TestApi> {
  const store = await target.open(options.clock ?? systemClock, options.limits ?? {});
  const models = createModelRouter({
    platform: options.llm ?? createScriptedLLM([{ text: 'OK.' }], { repeatLast: true }),
  });
  const clock = options.clock ?? systemClock;
  const recordings = createMemoryRecordings();
  const node = `test-${Math.random().toString(36).slice(2)}`;
  const sip = options.sip
    ? await openSip({ ...TEST_SIP, ...options.sip }, store, { clock, logger: silentLogger(), node })
    : null;
  const speechRegistry = options.speechVendors
    ? createSpeechRegistry({
        ...options.speechVendors,
        offline: options.speech?.offline ?? null,
        workspaceVendors: (workspaceId) => store.speechProviders.list(workspaceId),
        clock,
        logger: silentLogger(),
      })
    : undefined;
  const engine = createEngine({
    store,
    models,
    clock,
    logger: silentLogger(),
    node,
    ...(speechRegistry ? { speechRegistry } : {}),
    ...(options.load ? { load: options.load } : {}),
    ...(options.callLoad ? { callLoad: options.callLoad } : {}),
    simSpeed: options.simSpeed ?? 0,
    ...(sip ? { sip: sip.carrier } : {}),
    ...(options.speech ? { speech: options.speech } : {}),
    recordings: { storage: recordings, publicUrl: options.publicUrl ?? TEST_PUBLIC_URL },
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    messaging: options.messaging ?? { sim: createSimMessaging({ clock }) },
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.inboundWebhookTimeoutMs ? { inboundWebhookTimeoutMs: options.inboundWebhookTimeoutMs } : {}),
    ...(options.callsPollIntervalMs ? { callsPollIntervalMs: options.callsPollIntervalMs } : {}),
    ...(options.afterCallConcurrency ? { afterCallConcurrency: options.afterCallConcurrency } : {}),
    ...(options.wsMedia === false ? { wsMedia: false } : {}),
    publicUrl: options.publicUrl ?? TEST_PUBLIC_URL,
    ...(options.twilio
      ? { twilio: { server: options.twilio.server ?? null, baseUrl: options.twilio.baseUrl } }
      : {}),
  });
  const api = await buildApi({
    store,
    models,
    services: engine.services,
    chats: engine.chats,
    calls: engine.calls,
    sim: engine.sim,
    wsMedia: engine.wsMedia,
    webCalls: engine.webCalls,
    twilio: engine.twilio,
    twilioServerAccount: options.twilio?.server !== undefined,
    ...(speechRegistry ? { speechRegistry } : {}),
    ...(options.wsMediaKeepAliveMs ? { wsMediaKeepAliveMs: options.wsMediaKeepAliveMs } : {}),
    recordings,
    dialer: engine.dialer,
    simulations: engine.simulations,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.publicRateLimit ? { publicRateLimit: options.publicRateLimit } : {}),
    ...(options.trustProxy ? { trustProxy: true } : {}),
    ...(options.authCacheTtlMs !== undefined ? { authCacheTtlMs: options.authCacheTtlMs } : {}),
    ...(options.eagerSchemas ? { eagerSchemas: true } : {}),
    ...(options.schemaCompiles ? { schemaCompiles: options.schemaCompiles } : {}),
    ...(options.allowPrivateNetwork ? { allowPrivateNetwork: true } : {}),
    logger: silentLogger(),
    publicUrl: options.publicUrl ?? TEST_PUBLIC_URL,
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
  });
  await api.ready();
  await engine.start();
  const ws = await createWorkspace(store, 'main');
  const other = await createWorkspace(store, 'other');
  return {
    api,
    recordings,
    store,
    models,
    engine,
    ws,
    other,
    sipPort: sip?.carrier.port ?? null,
    sip,
    call({ key, headers, ...rest }) {
      const auth = key === null ? {} : { authorization: `Bearer ${key ?? ws.key}` };
      return api.inject({ ...rest, headers: { ...auth, ...headers } });
    },
    async close() {
      await api.close();
      await engine.stop(0);
      await sip?.close();
      await store.close();
    },
  };
}

/** Runs `body` once per store dialect, naming the dialect in the describe title. */
export function forEachStore(title: string, body: (target: StoreTarget) => void): void {
  for (const target of storeTargets()) {
    describe(`${title} [${target.dialect}]`, () => body(target));
  }
}

/** A minimal valid agent body. */
export function agentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'outbound', name: 'Sales agent', agent: { prompt: 'You sell solar panels.' }, ...overrides };
}
