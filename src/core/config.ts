import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { speechConfig, type SpeechConfig } from './speech-config.ts';

// The process configuration, read once from the environment by the composition root. Every
// variable is listed in the README's configuration table; a bad value stops the start with a
// message that names the variable.

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL URL; when absent the embedded SQLite file under `dataDir` is used. */
  databaseUrl: string | undefined;
  bootstrapApiKey: string | undefined;
  publicUrl: string;
  nodeName: string;
  logLevel: string;
  logPii: boolean;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** How long shutdown waits for in-flight work before closing anyway, in ms. */
  shutdownTimeoutMs: number;
  /** Requests per minute one client address may make to the keyless (widget) chat endpoints. */
  publicRateLimitPerMinute: number;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean;
  /** Knowledge sources (web, pdf URLs) may be fetched from private addresses. */
  allowPrivateNetwork: boolean;
  /** An OpenAI-compatible chat-completions endpoint; absent: the offline builtin model. */
  llm: { baseUrl: string; apiKey: string; model: string } | undefined;
  /** Twilio's Messages API for numbers with provider `twilio`; absent: not configured. */
  twilio: { accountSid: string; authToken: string; baseUrl: string } | undefined;
  /** The simulated carrier's pace: 1 = real time, 0 = as fast as possible. */
  simSpeed: number;
  /**
   * `audio` (default): sim calls speak and hear through the voice session; `text`: sim calls run
   * as text turns (the fast path for load tests of the platform around calls).
   */
  simMode: 'audio' | 'text';
  /**
   * The offline voice activity detector: `energy` (default: microseconds of CPU a frame) or
   * `silero` (in-process ONNX: better in noise, about 20 times the CPU; docs/voice.md).
   */
  vad: 'energy' | 'silero';
  /** The WebSocket media test call (`POST /v2/calls/outbound-test-ws-media`); off: 503. */
  wsMedia: boolean;
  /**
   * Who writes a WebSocket media call's audio frames to its socket: `worker` (default), the frame
   * pacer's thread straight to the socket (plain TCP), so the main thread's load does not delay
   * them; `main`, the carrier's beat on the main thread (docs/ws-media.md).
   */
  wsMediaSender: 'worker' | 'main';
  /** Each inbound-webhook attempt waits at most this long, in ms. */
  inboundWebhookTimeoutMs: number;
  /** The SIP carrier (docs/sip.md); undefined when PARLEY_SIP=off. */
  sip: SipConfig | undefined;
  /** Hosted speech vendors and their order (docs/speech-providers.md). */
  speech: SpeechConfig;
  /** An event-loop p99 delay above this stops the process taking new calls (0: never; docs/operations.md). */
  maxEventLoopLagMs: number;
  /** An event loop busy more than this percent of the time stops it too (0: never; docs/operations.md). */
  maxEventLoopBusyPercent: number;
  /** New calls a process not saturated takes per second (0, the default: any; docs/operations.md). */
  maxNewCallsPerSecond: number;
  /** The event loop's busy percent a process fills with calls, as predicted (0: no limit; docs/operations.md). */
  callLoadTargetPercent: number;
  /** A node silent this long is taken over by the others (its calls fail; docs/durability.md). */
  nodeDeadAfterMs: number;
}

export interface SipConfig {
  /** Where the SIP listener binds (UDP and TCP share the port). */
  listenAddress: string;
  port: number;
  transports: ('udp' | 'tcp')[];
  /** The address written in Via, Contact and SDP (what trunks reach this node at). */
  publicAddress: string;
  /** Even RTP ports from min to max; one per call. */
  rtpPortMin: number;
  rtpPortMax: number;
  /** An outbound call ringing this long is canceled as no-answer. */
  ringTimeoutMs: number;
  /** A call whose far end sends no RTP this long (not on hold) is ended. */
  rtpTimeoutMs: number;
  /**
   * Requests that open something (INVITE, OPTIONS, REGISTER...) taken per source address and
   * second, in bursts of twice that; beyond it they are dropped unanswered.
   */
  rateLimitPerSecond: number;
}

function sipConfig(env: Env, host: string): SipConfig | undefined {
  if (!onOffVar(env, 'PARLEY_SIP', true)) return undefined;
  const listenAddress = env.PARLEY_SIP_LISTEN_ADDRESS || host;
  if (isIP(listenAddress) === 0) {
    throw new ConfigError(`PARLEY_SIP_LISTEN_ADDRESS must be an IP address, got "${listenAddress}"`);
  }
  const wildcard = listenAddress === '0.0.0.0' || listenAddress === '::';
  const publicAddress = env.PARLEY_SIP_PUBLIC_ADDRESS || (wildcard ? '127.0.0.1' : listenAddress);
  if (isIP(publicAddress) === 0) {
    throw new ConfigError(`PARLEY_SIP_PUBLIC_ADDRESS must be an IP address, got "${publicAddress}"`);
  }
  const transports = (env.PARLEY_SIP_TRANSPORTS || 'udp,tcp').split(',').map((t) => t.trim().toLowerCase());
  if (transports.length === 0 || transports.some((t) => t !== 'udp' && t !== 'tcp')) {
    throw new ConfigError(
      `PARLEY_SIP_TRANSPORTS must list udp and/or tcp, got "${env.PARLEY_SIP_TRANSPORTS}"`,
    );
  }
  const rtpPortMin = intVar(env, 'PARLEY_RTP_PORT_MIN', 20_000, 1024, 65_534);
  const rtpPortMax = intVar(env, 'PARLEY_RTP_PORT_MAX', 29_999, 1025, 65_535);
  if (rtpPortMax <= rtpPortMin)
    throw new ConfigError('PARLEY_RTP_PORT_MAX must be above PARLEY_RTP_PORT_MIN');
  return {
    listenAddress,
    port: intVar(env, 'PARLEY_SIP_PORT', 5060, 0, 65_535),
    transports: [...new Set(transports)] as ('udp' | 'tcp')[],
    publicAddress,
    rtpPortMin,
    rtpPortMax,
    ringTimeoutMs: intVar(env, 'PARLEY_SIP_RING_TIMEOUT_MS', 60_000, 1_000, 600_000),
    rtpTimeoutMs: intVar(env, 'PARLEY_RTP_TIMEOUT_MS', 30_000, 1_000, 3_600_000),
    rateLimitPerSecond: intVar(env, 'PARLEY_SIP_RATE_LIMIT_PER_SECOND', 10, 1, 100_000),
  };
}

function speedVar(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 100) {
    throw new ConfigError(`${name} must be a number from 0 to 100, got "${raw}"`);
  }
  return value;
}

function onOffVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

function simModeVar(env: Env): Config['simMode'] {
  const raw = env.PARLEY_SIM_MODE;
  if (raw === undefined || raw === '' || raw === 'audio') return 'audio';
  if (raw === 'text') return 'text';
  throw new ConfigError(`PARLEY_SIM_MODE must be audio or text, got "${raw}"`);
}

function vadVar(env: Env): Config['vad'] {
  const raw = env.PARLEY_VAD;
  if (raw === undefined || raw === '' || raw === 'energy') return 'energy';
  if (raw === 'silero') return 'silero';
  throw new ConfigError(`PARLEY_VAD must be energy or silero, got "${raw}"`);
}

function wsMediaSenderVar(env: Env): Config['wsMediaSender'] {
  const raw = env.PARLEY_WS_MEDIA_SENDER;
  if (raw === undefined || raw === '' || raw === 'worker') return 'worker';
  if (raw === 'main') return 'main';
  throw new ConfigError(`PARLEY_WS_MEDIA_SENDER must be worker or main, got "${raw}"`);
}

export const DEFAULT_TWILIO_BASE_URL = 'https://api.twilio.com';

/** Twilio messaging: configured when both the account SID and the auth token are given. */
function twilioConfig(env: Env): Config['twilio'] {
  const accountSid = env.PARLEY_TWILIO_ACCOUNT_SID || undefined;
  const authToken = env.PARLEY_TWILIO_AUTH_TOKEN || undefined;
  const baseUrl = env.PARLEY_TWILIO_BASE_URL || undefined;
  if (!accountSid && !authToken) {
    if (baseUrl)
      throw new ConfigError(
        'PARLEY_TWILIO_BASE_URL needs PARLEY_TWILIO_ACCOUNT_SID and PARLEY_TWILIO_AUTH_TOKEN',
      );
    return undefined;
  }
  if (!accountSid) throw new ConfigError('PARLEY_TWILIO_AUTH_TOKEN needs PARLEY_TWILIO_ACCOUNT_SID');
  if (!authToken) throw new ConfigError('PARLEY_TWILIO_ACCOUNT_SID needs PARLEY_TWILIO_AUTH_TOKEN');
  const url = baseUrl ?? DEFAULT_TWILIO_BASE_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`PARLEY_TWILIO_BASE_URL must be an http or https URL, got "${url}"`);
  }
  return { accountSid, authToken, baseUrl: url.replace(/\/+$/, '') };
}

export const DEFAULT_LLM_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_LLM_MODEL = 'gpt-4.1-mini';

/** The LLM endpoint: configured when a base URL or an API key is given. */
function llmConfig(env: Env): Config['llm'] {
  const baseUrl = env.PARLEY_LLM_BASE_URL || undefined;
  const apiKey = env.PARLEY_LLM_API_KEY || undefined;
  const model = env.PARLEY_LLM_MODEL || undefined;
  if (!baseUrl && !apiKey) {
    if (model) throw new ConfigError('PARLEY_LLM_MODEL needs PARLEY_LLM_BASE_URL or PARLEY_LLM_API_KEY');
    return undefined;
  }
  const url = baseUrl ?? DEFAULT_LLM_BASE_URL;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`PARLEY_LLM_BASE_URL must be an http or https URL, got "${url}"`);
  }
  // Local servers (Ollama, llama.cpp, vLLM) often need no key; the SDK still wants one.
  return {
    baseUrl: url.replace(/\/+$/, ''),
    apiKey: apiKey ?? 'not-needed',
    model: model ?? DEFAULT_LLM_MODEL,
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolVar(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1, 0, true or false, got "${raw}"`);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const MIN_BOOTSTRAP_KEY_LENGTH = 16;

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = intVar(env, 'PORT', 8080, 0, 65535);
  const logLevel = env.PARLEY_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`PARLEY_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const databaseUrl = env.PARLEY_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('PARLEY_DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const bootstrapApiKey = env.PARLEY_BOOTSTRAP_API_KEY || undefined;
  if (bootstrapApiKey !== undefined && !/^[\x21-\x7e]+$/.test(bootstrapApiKey)) {
    throw new ConfigError('PARLEY_BOOTSTRAP_API_KEY must be printable ASCII without spaces');
  }
  if (bootstrapApiKey !== undefined && bootstrapApiKey.length < MIN_BOOTSTRAP_KEY_LENGTH) {
    throw new ConfigError(`PARLEY_BOOTSTRAP_API_KEY must be at least ${MIN_BOOTSTRAP_KEY_LENGTH} characters`);
  }
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = (env.PARLEY_PUBLIC_URL || `http://${displayHost}:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`PARLEY_PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }
  return {
    host,
    port,
    dataDir: resolve(env.PARLEY_DATA_DIR || './data'),
    databaseUrl,
    bootstrapApiKey,
    publicUrl,
    nodeName: env.PARLEY_NODE_NAME || `${hostname()}:${port}`,
    logLevel,
    logPii: boolVar(env, 'PARLEY_LOG_PII'),
    bodyLimitBytes: intVar(env, 'PARLEY_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    shutdownTimeoutMs: intVar(env, 'PARLEY_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    publicRateLimitPerMinute: intVar(env, 'PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE', 20, 1, 1_000_000),
    trustProxy: boolVar(env, 'PARLEY_TRUST_PROXY'),
    allowPrivateNetwork: boolVar(env, 'PARLEY_ALLOW_PRIVATE_NETWORK'),
    llm: llmConfig(env),
    twilio: twilioConfig(env),
    simSpeed: speedVar(env, 'PARLEY_SIM_SPEED', 1),
    simMode: simModeVar(env),
    vad: vadVar(env),
    wsMedia: onOffVar(env, 'PARLEY_WS_MEDIA', true),
    wsMediaSender: wsMediaSenderVar(env),
    inboundWebhookTimeoutMs: intVar(env, 'PARLEY_INBOUND_WEBHOOK_TIMEOUT_MS', 2500, 100, 10_000),
    sip: sipConfig(env, host === 'localhost' ? '127.0.0.1' : host),
    speech: speechConfig(env, (message) => new ConfigError(message)),
    maxEventLoopLagMs: intVar(env, 'PARLEY_MAX_EVENT_LOOP_LAG_MS', 100, 0, 10_000),
    maxEventLoopBusyPercent: intVar(env, 'PARLEY_MAX_EVENT_LOOP_BUSY_PERCENT', 0, 0, 100),
    maxNewCallsPerSecond: intVar(env, 'PARLEY_MAX_NEW_CALLS_PER_S', 0, 0, 100_000),
    callLoadTargetPercent: intVar(env, 'PARLEY_CALL_LOAD_TARGET_PERCENT', 60, 0, 100),
    nodeDeadAfterMs: intVar(env, 'PARLEY_NODE_DEAD_AFTER_MS', 30_000, 3_000, 3_600_000),
  };
}
