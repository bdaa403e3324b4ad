import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApi, injectFetch, type McpHttpHandler } from './api/index.ts';
import { createParley } from '../sdk/index.ts';
import {
  createCallService,
  createWebCalls,
  type CallRecordings,
  type CallService,
  type HeadroomOptions,
  type SpeechChoice,
  type WebCalls,
} from './calls/index.ts';
import { createChats, type Chats } from './chat/index.ts';
import { createSimulatedPerson } from './conversation/index.ts';
import {
  createLoadGate,
  createLogger,
  createSafeFetch,
  PACKAGE_ROOT,
  systemClock,
  type Clock,
  type Config,
  type LoadGate,
  type Logger,
  type SipConfig,
} from './core/index.ts';
import {
  createConversationServices,
  type ConversationServices,
  type MessagingDeps,
} from './runtime/index.ts';
import {
  createRtpMedia,
  createSipCarrier,
  createSimCarrier,
  createTwilioCarrier,
  createTwilioRest,
  createWorkerPacer,
  createWsMediaCarrier,
  WS_CODECS,
  WS_FRAMINGS,
  type WsMediaCarrier,
  type WsMediaHandedOver,
  type WsMediaSessionDirectory,
  type CalleeFactory,
  type FarEndVoice,
  type SimCarrier,
  type RtpMedia,
  type SipCarrier,
  type SipNumberDirectory,
  type SipTrunkSettings,
  type TwilioAccount,
  type TwilioCarrier,
  type TwilioDirectory,
} from './telephony/index.ts';
import { createDialer, type Dialer } from './dialer/index.ts';
import {
  createSpeechRegistry,
  type OfflineSpeech,
  type SpeechRegistry,
  type SpeechVendorFactories,
} from './speech/index.ts';
import { createSimulationService, type SimulationService } from './simulation/index.ts';
import { createWebhookDispatcher, webhookFetchLimits, type WebhookDispatcher } from './webhooks/index.ts';

/** The NOTIFY channel that wakes dialers: a slot freed, a batch created or resumed. */
const DIALER_CHANNEL = 'dialer';
/** The console as `npm ci` builds it (console/build.mjs). */
const CONSOLE_DIR = join(PACKAGE_ROOT, 'console', 'dist');
/** Calls waiting for a named node (a WS media call handed over). */
const CALLS_CHANNEL = 'calls';
import {
  DEFAULT_FLITE_VOICE,
  POCKETSPHINX_INSTALL,
  checkPocketSphinx,
  createBuiltinLLM,
  createEnergyVAD,
  createSileroVAD,
  createFliteTTS,
  createElevenLabsTTS,
  createDeepgramSTT,
  createOpenAISTT,
  createOpenAITTS,
  OPENAI_DEFAULT_BASE_URL,
  OPENAI_DEFAULT_STT_MODEL,
  OPENAI_DEFAULT_TTS_MODEL,
  DEEPGRAM_DEFAULT_BASE_URL,
  DEEPGRAM_DEFAULT_MODEL,
  createCartesiaTTS,
  ELEVENLABS_DEFAULT_BASE_URL,
  ELEVENLABS_DEFAULT_MODEL,
  CARTESIA_DEFAULT_BASE_URL,
  CARTESIA_DEFAULT_MODEL,
  CARTESIA_DEFAULT_VERSION,
  createModelRouter,
  createPocketSphinxSTT,
  createSimulatedVoice,
  createOpenAILLM,
  createSimMessaging,
  createTwilioInboundParser,
  createTwilioMessaging,
  type ModelRouter,
} from './providers/index.ts';
export { DEFAULT_MAX_CONCURRENT_CALLS } from './store/index.ts';
import {
  bootstrapWorkspace,
  createFileRecordings,
  createStore,
  type BootstrapResult,
  type DatabaseOptions,
  type RecordingStorage,
  readSipTrunk,
  type Store,
  type WsMediaSessionRecord,
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
  /** What this process does (`parley serve --role`); default both the API and the background work. */
  role?: Role;
  /** The speech voice calls run on; default the offline speech (`offlineSpeech`). */
  speech?: SpeechSetup;
  /** Who answers the sim's outbound calls; default a simulated person on the platform model. */
  simCallee?: CalleeFactory;
}

export interface App {
  readonly config: Config;
  readonly store: Store;
  readonly api: FastifyInstance;
  readonly logger: Logger;
  readonly bootstrap: BootstrapResult;
  readonly engine: Engine;
  /** The SIP carrier and its RTP media when this node runs SIP calls (e.g. the media's sendTiming()). */
  readonly sip: Pick<SipSetup, 'carrier' | 'media'> | null;
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

/** The speech calls run on, and the sim's far-end voice. */
export interface SpeechSetup {
  choice: SpeechChoice;
  /** The offline engines, for the speech registry (null: this node runs no calls). */
  offline?: OfflineSpeech;
  /** The far end of sim calls: with one, sim calls carry audio; null: text turns. */
  farEnd: FarEndVoice | null;
  close(): Promise<void>;
}

/**
 * The hosted speech vendors' adapters, by vendor (docs/speech-providers.md): what a vendor's
 * settings build. Vendors without an adapter here are refused when configured.
 */
export function speechVendorFactories(deps: { clock: Clock; logger: Logger }): SpeechVendorFactories {
  const { clock } = deps;
  const logger = (vendor: string) => deps.logger.child({ speech_vendor: vendor });
  return {
    stt: {
      deepgram: (s) =>
        createDeepgramSTT({
          apiKey: s.apiKey,
          baseUrl: s.baseUrl ?? DEEPGRAM_DEFAULT_BASE_URL,
          model: s.sttModel ?? DEEPGRAM_DEFAULT_MODEL,
          clock,
          logger: logger('deepgram'),
        }),
      openai: (s) =>
        createOpenAISTT({
          apiKey: s.apiKey,
          baseUrl: s.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
          model: s.sttModel ?? OPENAI_DEFAULT_STT_MODEL,
          clock,
          logger: logger('openai'),
        }),
    },
    tts: {
      elevenlabs: (s) =>
        createElevenLabsTTS({
          apiKey: s.apiKey,
          baseUrl: s.baseUrl ?? ELEVENLABS_DEFAULT_BASE_URL,
          model: s.ttsModel ?? ELEVENLABS_DEFAULT_MODEL,
          defaultVoice: s.voice ?? ELEVENLABS_DEFAULT_VOICE,
          clock,
          logger: logger('elevenlabs'),
        }),
      // Cartesia has no voice every key can use: its default voice is a setting (checked at start).
      cartesia: (s) =>
        createCartesiaTTS({
          apiKey: s.apiKey,
          baseUrl: s.baseUrl ?? CARTESIA_DEFAULT_BASE_URL,
          version: CARTESIA_DEFAULT_VERSION,
          model: s.ttsModel ?? CARTESIA_DEFAULT_MODEL,
          defaultVoice: s.voice ?? '',
          clock,
          logger: logger('cartesia'),
        }),
      openai: (s) =>
        createOpenAITTS({
          apiKey: s.apiKey,
          baseUrl: s.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
          model: s.ttsModel ?? OPENAI_DEFAULT_TTS_MODEL,
          defaultVoice: s.voice ?? 'alloy',
          clock,
          logger: logger('openai'),
        }),
    },
  };
}

/** ElevenLabs' premade "Rachel", which every account can use. */
const ELEVENLABS_DEFAULT_VOICE = '21m00Tcm4TlvDq8ikWAM';

/** The sim's people: the voice the agents' recognizer hears best (docs/voice.md), not the agents' default. */
const SIM_PERSON_VOICE = 'rms';

/**
 * The offline speech (docs/voice.md): the energy VAD, PocketSphinx (a system package) and flite
 * in-process. Without PocketSphinx, Parley says once what it lacks and how to get it: voice calls
 * fail with that reason and sim calls run as text turns. `simMode: 'text'` keeps sim calls as text
 * turns anyway (the fast path for load tests of the platform around calls).
 */
export async function offlineSpeech(options: {
  logger: Logger;
  clock?: Clock;
  simMode: 'audio' | 'text';
  /** Default `energy` (PARLEY_VAD). */
  vad?: Config['vad'];
}): Promise<SpeechSetup> {
  const { logger } = options;
  // A VAD asked for and missing is a start that fails, not a call that does.
  const vad = options.vad === 'silero' ? await createSileroVAD() : createEnergyVAD();
  const check = await checkPocketSphinx();
  if (!check.ok) {
    const missing = `PocketSphinx is not installed (missing ${check.missing.join(', ')}; install it with: ${POCKETSPHINX_INSTALL})`;
    logger.warn(
      { missing: check.missing, install: POCKETSPHINX_INSTALL },
      'no offline speech recognizer: voice calls need a hosted one (docs/speech-providers.md), simulated calls run as text turns',
    );
    // Hosted recognizers still give calls their hearing: flite and the VAD are in-process.
    const tts = createFliteTTS({ clock: options.clock ?? systemClock });
    return {
      choice: { missing },
      offline: {
        vad,
        stt: null,
        sttMissing: missing,
        tts,
        voice: DEFAULT_FLITE_VOICE,
        voices: tts.voices,
      },
      farEnd: null,
      close: () => tts.close(),
    };
  }
  const clock = options.clock ?? systemClock;
  const tts = createFliteTTS({ clock });
  const stt = await createPocketSphinxSTT({ clock, logger });
  const offline: OfflineSpeech = { vad, stt, tts, voice: DEFAULT_FLITE_VOICE, voices: tts.voices };
  // The sim's callees hear the agents with decoders of their own: sharing the agents' pool, every
  // simulated call would double the demand on it and the far end would starve the platform's own
  // recognizer (one call's utterance waiting out its deadline while callees hear long greetings).
  const farEndStt = options.simMode === 'audio' ? await createPocketSphinxSTT({ clock, logger }) : null;
  return {
    choice: { speech: { vad, stt, tts, voice: DEFAULT_FLITE_VOICE, voices: tts.voices } },
    offline,
    farEnd: farEndStt ? createSimulatedVoice({ tts, stt: farEndStt, vad, voice: SIM_PERSON_VOICE }) : null,
    async close() {
      await stt.close();
      await farEndStt?.close();
      await tts.close();
    },
  };
}

function callRecordings(options: { storage: RecordingStorage; publicUrl: string }): CallRecordings {
  const base = options.publicUrl.replace(/\/+$/, '');
  return { storage: options.storage, urlOf: (callId) => `${base}/v2/calls/${callId}/recording` };
}

/** Sessions other nodes handed over to `node` through the store (calls across nodes). */
function wsMediaDirectory(store: Store, node: string): WsMediaSessionDirectory {
  const mine = (found: WsMediaSessionRecord | null): WsMediaHandedOver | null => {
    if (!found || found.node !== node) return null;
    const codec = WS_CODECS.find((c) => c === found.codec);
    const framing = WS_FRAMINGS.find((f) => f === found.framing);
    if (!codec || !framing) return null;
    return { sid: found.sid, callId: found.callId, codec, framing, expiresAt: found.expiresAt };
  };
  return {
    bySid: async (sid) => mine(await store.wsMediaSessions.get(sid)),
    byCall: async (callId) => mine(await store.wsMediaSessions.ofCall(callId)),
  };
}

/** A stored number's trunk as the SIP carrier takes it. */
function trunkOf(sip: Record<string, unknown> | null): SipTrunkSettings | null {
  const trunk = readSipTrunk(sip);
  if (!trunk) return null;
  return {
    host: trunk.host,
    port: trunk.port,
    transport: trunk.transport,
    username: trunk.username,
    password: trunk.password,
    authUsername: trunk.auth_username,
    outboundProxy: trunk.outbound_proxy,
    register: trunk.uac_enabled,
    registerExpires: trunk.uac_register_expires,
    allowedAddresses: trunk.allowed_addresses,
    inboundUsername: trunk.inbound_username,
    inboundPassword: trunk.inbound_password,
  };
}

/** SIP numbers and their trunks, from the store (the SIP carrier's directory). */
function sipNumberDirectory(store: Store, node: string): SipNumberDirectory {
  return {
    async outbound(from, workspaceId) {
      if (!workspaceId) return null;
      const number = await store.phoneNumbers.getBySlug(workspaceId, from.replace(/^\+/, ''));
      return number?.provider === 'sip' ? trunkOf(number.sip) : null;
    },
    async inbound(e164) {
      const found = await store.phoneNumbers.findEverywhere(e164, 'sip');
      return found.flatMap((n) => {
        const trunk = trunkOf(n.sip);
        return trunk ? [{ workspaceId: n.workspaceId, numberId: n.id, trunk }] : [];
      });
    },
    async registering() {
      const numbers = await store.phoneNumbers.listEverywhere('sip');
      return numbers.flatMap((n) => {
        const trunk = trunkOf(n.sip);
        return trunk?.register
          ? [{ numberId: n.id, workspaceId: n.workspaceId, number: n.number, trunk }]
          : [];
      });
    },
    async saveRegistration(numberId, state) {
      await store.sipRegistrations.save({
        numberId,
        state: state.state,
        error: state.state === 'failed' ? state.error : null,
        expiresAt: state.state === 'registered' ? state.expiresAt : null,
        retryAt: state.state === 'failed' ? state.retryAt : null,
        node,
      });
    },
  };
}

/**
 * Twilio accounts for the carrier: a workspace's own (PUT /v2/twilio/account), else the server's
 * (PARLEY_TWILIO_*). An incoming call is for the workspace holding the number on the account
 * Twilio names.
 */
function twilioDirectory(store: Store, server: TwilioAccount | null): TwilioDirectory {
  const own = async (workspaceId: string): Promise<TwilioAccount | null> => {
    const found = await store.twilioAccounts.get(workspaceId);
    return found ? { accountSid: found.accountSid, authToken: found.authToken } : server;
  };
  return {
    async accountForCall(callId, workspaceId) {
      if (workspaceId) return own(workspaceId);
      const call = await store.calls.getById(callId);
      return call ? own(call.workspaceId) : null;
    },
    async account(accountSid) {
      if (server?.accountSid === accountSid) return server;
      const found = await store.twilioAccounts.byAccountSid(accountSid);
      return found ? { accountSid: found.accountSid, authToken: found.authToken } : null;
    },
    async workspaceOf(to, accountSid) {
      const holders = await store.twilioAccounts.holdersOf(to);
      const holder = holders.find((h) => (h.accountSid ?? server?.accountSid) === accountSid);
      return holder?.workspaceId ?? null;
    },
  };
}

export interface SipSetup {
  carrier: SipCarrier;
  media: RtpMedia;
  close(): Promise<void>;
}

/** The SIP carrier and its RTP media (docs/sip.md), on nodes that run calls with PARLEY_SIP on. */
export async function openSip(
  sip: SipConfig,
  store: Store,
  options: { clock: Clock; logger: Logger; node: string },
): Promise<SipSetup> {
  const { clock, logger } = options;
  const media = createRtpMedia({
    bindAddress: sip.listenAddress,
    portMin: sip.rtpPortMin,
    portMax: sip.rtpPortMax,
    clock,
    logger,
    thread: clock === systemClock ? 'worker' : 'caller',
    rtpTimeoutMs: sip.rtpTimeoutMs,
  });
  try {
    const carrier = await createSipCarrier({
      listenAddress: sip.listenAddress,
      port: sip.port,
      transports: sip.transports,
      publicAddress: sip.publicAddress,
      media,
      directory: sipNumberDirectory(store, options.node),
      clock,
      logger,
      ringTimeoutMs: sip.ringTimeoutMs,
      rateLimit: { perSecond: sip.rateLimitPerSecond, burst: 2 * sip.rateLimitPerSecond },
    });
    logger.info({ sip_port: carrier.port }, 'SIP carrier listening');
    return {
      carrier,
      media,
      async close() {
        await carrier.close();
        await media.close();
      },
    };
  } catch (err) {
    await media.close();
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `the SIP listener could not start on ${sip.listenAddress}:${sip.port} (PARLEY_SIP_PORT, PARLEY_SIP=off to run without SIP): ${why}`,
    );
  }
}

export interface EngineOptions {
  store: Store;
  models: ModelRouter;
  clock: Clock;
  logger: Logger;
  /** This process's name (`PARLEY_NODE_NAME`), owner of the calls it runs. */
  node: string;
  /** `PARLEY_SIM_SPEED`: 1 real time, 0 as fast as possible. */
  simSpeed: number;
  /** Speech for voice calls and the sim's far end; default none (sim calls run as text turns). */
  speech?: SpeechSetup;
  /** Chooses each voice call's speech (hosted vendors, failover); absent: every call runs on `speech`. */
  speechRegistry?: SpeechRegistry;
  /** Whether this process is saturated: then it takes no new calls (absent: never). */
  load?: LoadGate;
  /** The event loop's busy share filled with calls, as predicted from `load` (default no limit). */
  callLoad?: HeadroomOptions;
  /** Where calls of agents with `is_recording` are recorded, and the public URL that serves them. */
  recordings?: { storage: RecordingStorage; publicUrl: string };
  allowPrivateNetwork: boolean;
  messaging: MessagingDeps;
  inboundWebhookTimeoutMs?: number;
  /** How often calls waiting without an announcement (other processes) are looked for; default 1 s. */
  callsPollIntervalMs?: number;
  /** Calls whose after-the-call work runs at once in this process (default 8). */
  afterCallConcurrency?: number;
  /**
   * A node silent this long is taken over by the others (default 30 s; PARLEY_NODE_DEAD_AFTER_MS).
   * Each node then says it is alive six times as often, at most every 5 s.
   */
  nodeDeadAfterMs?: number;
  /**
   * `all` (default): API and background work; `api`: stores calls and batches for the workers;
   * `worker`: runs calls, campaigns and webhook delivery.
   */
  role?: Role;
  /** Webhook delivery tuning (tests shorten the retry schedule). */
  webhooks?: { retryDelaysMs?: readonly number[]; attemptTimeoutMs?: number; pollIntervalMs?: number };
  /** The WebSocket media test call (default true; PARLEY_WS_MEDIA). */
  wsMedia?: boolean;
  /** Who writes WebSocket media frames to the socket (default `worker`; PARLEY_WS_MEDIA_SENDER). */
  wsMediaSender?: 'worker' | 'main';
  /** Where clients reach this node (PARLEY_PUBLIC_URL): told to the others for calls across nodes. */
  publicUrl?: string;
  /** The SIP carrier, when this node runs SIP calls. */
  sip?: SipCarrier;
  /**
   * The Twilio carrier (numbers with provider `twilio`): the server's default account, if any, and
   * Twilio's REST base URL (default https://api.twilio.com; tests: a fake's).
   */
  twilio?: { server: TwilioAccount | null; baseUrl?: string };
  /** Who answers the sim's outbound calls (benchmarks); default a simulated person. */
  simCallee?: CalleeFactory;
}

export type Role = 'all' | 'api' | 'worker';
export const ROLES: readonly Role[] = ['all', 'api', 'worker'];

/** What runs behind the API: conversations, calls on the carriers, campaigns, webhook delivery. */
export interface Engine {
  services: ConversationServices;
  /** Chats over the API, SMS and WhatsApp. */
  chats: Chats;
  /** The simulated carrier (the API has it place the sim's inbound calls). */
  sim: SimCarrier;
  /** The WebSocket media carrier, when this node runs those calls (not `api` nor PARLEY_WS_MEDIA=off). */
  wsMedia: WsMediaCarrier | null;
  /** Starts WebSocket media test calls here or on another node; null when disabled. */
  webCalls: WebCalls | null;
  /** The Twilio carrier, when this node runs calls (its webhooks and stream are served here). */
  twilio: TwilioCarrier | null;
  calls: CallService;
  dialer: Dialer;
  simulations: SimulationService;
  webhooks: WebhookDispatcher;
  start(): Promise<void>;
  /** Stops taking calls, lets calls in progress finish (bounded), flushes webhooks. */
  stop(graceMs?: number): Promise<void>;
}

export function createEngine(options: EngineOptions): Engine {
  const { store, models, clock, logger } = options;
  const http = createSafeFetch({ allowPrivateNetwork: options.allowPrivateNetwork });
  const services = createConversationServices({
    repos: store,
    models,
    clock,
    http,
    messaging: options.messaging,
  });
  const webhooks = createWebhookDispatcher({
    store,
    clock,
    logger,
    http: createSafeFetch({
      allowPrivateNetwork: options.allowPrivateNetwork,
      ...webhookFetchLimits(options.webhooks?.attemptTimeoutMs),
    }),
    ...options.webhooks,
  });
  // The sim's people run on the platform model: the configured LLM, or the builtin offline. Each
  // plays the lead of its call (name and variables from the call record).
  const person =
    (role: 'callee' | 'caller'): CalleeFactory =>
    async (context) => {
      const { llm, model } = models.route(undefined, 'standard');
      const call = await store.calls.getById(context.callId);
      const name = call?.leadName || undefined;
      const simulated = createSimulatedPerson({
        llm,
        ...(model ? { model } : {}),
        role,
        persona: { ...(name ? { name } : {}), ...(call ? { variables: call.variables } : {}) },
        seed: context.callId,
      });
      return Object.assign(simulated, name ? { name } : {});
    };
  const speech = options.speech;
  const role = options.role ?? 'all';
  const background = role !== 'api';
  const runsWsMedia = options.wsMedia !== false && background;
  // Sim audio and WebSocket media frames leave from a worker thread on the system clock, so nothing
  // on the main thread delays a frame (WS media: the worker writes them to the socket itself,
  // docs/ws-media.md); on an injected clock (tests) the carriers' own beat sends them.
  const pacer =
    (speech?.farEnd || runsWsMedia) && clock === systemClock ? createWorkerPacer({ logger }) : undefined;
  const sim = createSimCarrier({
    clock,
    speed: options.simSpeed,
    callee: options.simCallee ?? person('callee'),
    caller: person('caller'),
    ...(speech?.farEnd ? { voice: speech.farEnd } : {}),
    ...(pacer && speech?.farEnd ? { pacer } : {}),
  });
  const wsMedia = !runsWsMedia
    ? null
    : createWsMediaCarrier({
        serverName: options.node,
        clock,
        logger,
        ...(pacer ? { pacer } : {}),
        sender: options.wsMediaSender ?? 'worker',
        directory: wsMediaDirectory(store, options.node),
      });
  const twilio = !background
    ? null
    : createTwilioCarrier({
        publicUrl: options.publicUrl ?? '',
        directory: twilioDirectory(store, options.twilio?.server ?? null),
        rest: createTwilioRest(options.twilio?.baseUrl ? { baseUrl: options.twilio.baseUrl } : {}),
        clock,
        logger,
      });
  // Set below: the dialer and the call service wake each other.
  let wakeDialer = () => undefined as void;
  const calls = createCallService({
    store,
    runtime: services.runtime,
    carriers: {
      sim,
      ...(wsMedia ? { ws: wsMedia } : {}),
      ...(twilio ? { twilio } : {}),
      ...(options.sip ? { sip: options.sip } : {}),
    },
    speech: speech?.choice ?? { missing: 'no speech providers were configured' },
    ...(options.speechRegistry ? { speechRegistry: options.speechRegistry } : {}),
    ...(options.load ? { load: options.load } : {}),
    ...(options.callLoad ? { headroom: options.callLoad } : {}),
    ...(options.recordings ? { recordings: callRecordings(options.recordings) } : {}),
    clock,
    logger,
    node: options.node,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    webhooks,
    onTakeover: (deadNode) => dialer.takeOver(deadNode),
    runsCalls: background,
    // A freed slot is refilled at once here, and in other processes through NOTIFY.
    onSlotReleased: () => {
      wakeDialer();
      void store.signals.notify(DIALER_CHANNEL).catch(() => undefined);
    },
    ...(options.callsPollIntervalMs ? { pollIntervalMs: options.callsPollIntervalMs } : {}),
    ...(options.afterCallConcurrency ? { afterCallConcurrency: options.afterCallConcurrency } : {}),
    ...(options.nodeDeadAfterMs
      ? {
          deadAfterMs: options.nodeDeadAfterMs,
          heartbeatMs: Math.min(5_000, Math.floor(options.nodeDeadAfterMs / 6)),
        }
      : {}),
    inboundWebhook: {
      http,
      ...(options.inboundWebhookTimeoutMs ? { timeoutMs: options.inboundWebhookTimeoutMs } : {}),
    },
  });
  const dialer = createDialer({
    store,
    calls,
    clock,
    logger,
    node: options.node,
    ...(options.callsPollIntervalMs ? { pollIntervalMs: options.callsPollIntervalMs } : {}),
    ...(options.load ? { mayDial: () => !options.load?.saturated, allowance: () => calls.allowance() } : {}),
  });
  // API-only nodes tell the workers about new work through NOTIFY; workers wake their dialer.
  wakeDialer = background
    ? () => dialer.wake()
    : () => void store.signals.notify(DIALER_CHANNEL).catch(() => undefined);
  const simulations = createSimulationService({ store, runtime: services.runtime, models, clock, logger });
  const loop = new AbortController();
  const webCalls =
    options.wsMedia === false
      ? null
      : createWebCalls({
          store,
          place: (workspace, input) => calls.place(workspace, input),
          carrier: wsMedia,
          node: options.node,
          publicUrl: options.publicUrl ?? '',
          clock,
          wakeOthers: () => void store.signals.notify(CALLS_CHANNEL).catch(() => undefined),
          ...(options.nodeDeadAfterMs ? { deadAfterMs: options.nodeDeadAfterMs } : {}),
        });
  const chats = createChats({
    store,
    runtime: services.runtime,
    hub: services.messaging,
    replies: services.replies,
    clock,
  });
  return {
    services,
    chats,
    sim,
    wsMedia,
    webCalls,
    twilio,
    simulations,
    calls,
    dialer: background ? dialer : { ...dialer, wake: wakeDialer },
    webhooks,
    async start() {
      if (!background) return;
      webhooks.start();
      await calls.start(loop.signal);
      await store.signals.listen(DIALER_CHANNEL, () => dialer.wake(), loop.signal);
      await store.signals.listen(CALLS_CHANNEL, () => calls.wake(), loop.signal);
      await dialer.start(loop.signal);
    },
    async stop(graceMs = 10_000) {
      // Stop dialing, let calls in progress end (bounded), then deliver what is in flight.
      loop.abort();
      await dialer.stop();
      await calls.stop(graceMs);
      await simulations.stop();
      await webhooks.stop();
      await pacer?.close();
    },
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

  const role = overrides.role ?? 'all';
  const store = await openStore(config, clock);
  let api: FastifyInstance | undefined;
  let engine: Engine | undefined;
  let speech: SpeechSetup | undefined;
  let sip: SipSetup | null = null;
  const loadWatch = new AbortController();
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
    const models = overrides.models ?? modelRouter(config);
    const recordings = createFileRecordings(join(config.dataDir, 'recordings'));
    // API-only nodes run no calls, so they load no speech.
    speech =
      overrides.speech ??
      (role === 'api'
        ? undefined
        : await offlineSpeech({ logger, clock, simMode: config.simMode, vad: config.vad }));
    if (speech) logger.info({ sim_calls: speech.farEnd ? 'audio' : 'text' }, 'speech ready');
    const speechRegistry = createSpeechRegistry({
      config: config.speech,
      factories: speechVendorFactories({ clock, logger }),
      offline: speech?.offline ?? null,
      workspaceVendors: (workspaceId) => store.speechProviders.list(workspaceId),
      clock,
      logger,
    });
    // Settings that do not work are said at start, not found mid-call (the check runs meanwhile).
    void speechRegistry
      .checkServer()
      .catch((err: unknown) => logger.warn({ err }, 'the speech providers could not be checked'));
    sip =
      role === 'api' || !config.sip
        ? null
        : await openSip(config.sip, store, { clock, logger, node: config.nodeName });
    engine = createEngine({
      store,
      models,
      clock,
      logger,
      node: config.nodeName,
      simSpeed: config.simSpeed,
      ...(speech ? { speech } : {}),
      speechRegistry,
      ...(config.maxEventLoopLagMs > 0 ||
      config.maxEventLoopBusyPercent > 0 ||
      config.callLoadTargetPercent > 0
        ? {
            callLoad: { target: config.callLoadTargetPercent / 100 },
            load: createLoadGate({
              clock: systemClock,
              maxLagMs: config.maxEventLoopLagMs > 0 ? config.maxEventLoopLagMs : Infinity,
              maxUtilization: config.maxEventLoopBusyPercent > 0 ? config.maxEventLoopBusyPercent / 100 : 1,
              claimsPerWindow: config.maxNewCallsPerSecond > 0 ? config.maxNewCallsPerSecond : Infinity,
              signal: loadWatch.signal,
            }),
          }
        : {}),
      recordings: { storage: recordings, publicUrl: config.publicUrl },
      allowPrivateNetwork: config.allowPrivateNetwork,
      messaging: overrides.messaging ?? messagingAdapters(config, clock),
      inboundWebhookTimeoutMs: config.inboundWebhookTimeoutMs,
      nodeDeadAfterMs: config.nodeDeadAfterMs,
      wsMedia: config.wsMedia,
      wsMediaSender: config.wsMediaSender,
      publicUrl: config.publicUrl,
      twilio: {
        server: config.twilio
          ? { accountSid: config.twilio.accountSid, authToken: config.twilio.authToken }
          : null,
        ...(config.twilio ? { baseUrl: config.twilio.baseUrl } : {}),
      },
      role,
      ...(sip ? { sip: sip.carrier } : {}),
      ...(overrides.simCallee ? { simCallee: overrides.simCallee } : {}),
    });
    // The MCP tools call this API in-process with the key their client sent. The MCP SDK is
    // loaded by the first MCP request, not at every start.
    const mcp: McpHttpHandler = async ({ apiKey, request, response, body }) => {
      const { answerMcpHttp } = await import('../mcp/index.ts');
      await answerMcpHttp(
        request,
        response,
        body,
        createParley({ baseUrl: config.publicUrl, apiKey, fetch: injectFetch(() => api) }),
      );
    };
    const consoleBuilt = existsSync(join(CONSOLE_DIR, 'index.html'));
    if (!consoleBuilt && role !== 'worker')
      logger.warn('the console is not built (npm run build:console): the server root serves no page');
    api = await buildApi({
      store,
      mcp,
      ...(consoleBuilt ? { consoleDir: CONSOLE_DIR } : {}),
      logger,
      services: engine.services,
      chats: engine.chats,
      calls: engine.calls,
      sim: engine.sim,
      wsMedia: engine.wsMedia,
      webCalls: engine.webCalls,
      twilio: engine.twilio,
      twilioServerAccount: config.twilio !== undefined,
      speechRegistry,
      recordings,
      dialer: engine.dialer,
      simulations: engine.simulations,
      apiRoutes: role !== 'worker',
      publicUrl: config.publicUrl,
      bodyLimitBytes: config.bodyLimitBytes,
      models,
      publicRateLimit: { requests: config.publicRateLimitPerMinute, windowMs: 60_000 },
      trustProxy: config.trustProxy,
      allowPrivateNetwork: config.allowPrivateNetwork,
    });
    await api.ready();
    await engine.start();
    const ready = api;
    const running = engine;
    const voice = speech;
    const telephony = sip;
    return {
      config,
      store,
      api: ready,
      logger,
      bootstrap,
      async listen() {
        return ready.listen({ host: config.host, port: config.port });
      },
      engine: running,
      sip: telephony ? { carrier: telephony.carrier, media: telephony.media } : null,
      async close() {
        loadWatch.abort();
        await ready.close();
        await running.stop(config.shutdownTimeoutMs);
        await telephony?.close();
        await voice?.close();
        await store.close();
      },
    };
  } catch (err) {
    loadWatch.abort();
    await api?.close();
    await engine?.stop(0);
    await sip?.close();
    await speech?.close();
    await store.close();
    throw err;
  }
}
