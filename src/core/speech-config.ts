// The hosted speech vendors configured for the whole server (docs/speech-providers.md): each by
// its key (and optionally base URL, models, default voice) in PARLEY_<VENDOR>_*, and the order in
// which a call tries them. The offline engines (PocketSphinx, flite) always close each order as
// the last resort, so a server with no keys runs as before.

export const STT_VENDORS = ['deepgram', 'openai'] as const;
export const TTS_VENDORS = ['elevenlabs', 'cartesia', 'openai'] as const;
export const SPEECH_VENDORS = ['deepgram', 'openai', 'elevenlabs', 'cartesia'] as const;
export type SttVendor = (typeof STT_VENDORS)[number];
export type TtsVendor = (typeof TTS_VENDORS)[number];
export type SpeechVendor = (typeof SPEECH_VENDORS)[number];

/** One vendor's settings; what a vendor does not use is ignored (documented per vendor). */
export interface VendorSettings {
  apiKey: string;
  /** The vendor's API root (self-hosted OpenAI-compatible servers, proxies); absent: its own. */
  baseUrl?: string;
  sttModel?: string;
  ttsModel?: string;
  /** The voice its TTS speaks with when the agent names none of its voices. */
  voice?: string;
}

export interface SpeechConfig {
  vendors: Partial<Record<SpeechVendor, VendorSettings>>;
  /** Hosted STT vendors in the order calls try them (PocketSphinx follows). */
  stt: SttVendor[];
  /** Hosted TTS vendors in the order calls try them (flite follows). */
  tts: TtsVendor[];
}

type Env = Record<string, string | undefined>;

const PREFIX: Record<SpeechVendor, string> = {
  deepgram: 'PARLEY_DEEPGRAM',
  openai: 'PARLEY_OPENAI_SPEECH',
  elevenlabs: 'PARLEY_ELEVENLABS',
  cartesia: 'PARLEY_CARTESIA',
};

function httpUrl(name: string, raw: string, fail: (message: string) => Error): string {
  try {
    const parsed = new URL(raw);
    if (!['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) throw new Error('scheme');
  } catch {
    throw fail(`${name} must be an http(s) or ws(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function vendorSettings(
  env: Env,
  vendor: SpeechVendor,
  fail: (message: string) => Error,
): VendorSettings | undefined {
  const prefix = PREFIX[vendor];
  const apiKey = env[`${prefix}_API_KEY`] || undefined;
  const baseUrl = env[`${prefix}_BASE_URL`] || undefined;
  const others = ['STT_MODEL', 'TTS_MODEL', 'VOICE'].filter((k) => env[`${prefix}_${k}`]);
  // OpenAI-compatible servers of one's own often need no key; the hosted vendors always do.
  if (!apiKey && !(vendor === 'openai' && baseUrl)) {
    if (baseUrl || others.length > 0)
      throw fail(`${prefix}_${baseUrl ? 'BASE_URL' : others[0]} needs ${prefix}_API_KEY`);
    return undefined;
  }
  const settings: VendorSettings = { apiKey: apiKey ?? '' };
  if (baseUrl) settings.baseUrl = httpUrl(`${prefix}_BASE_URL`, baseUrl, fail);
  const sttModel = env[`${prefix}_STT_MODEL`];
  const ttsModel = env[`${prefix}_TTS_MODEL`];
  const voice = env[`${prefix}_VOICE`];
  if (sttModel) settings.sttModel = sttModel;
  if (ttsModel) settings.ttsModel = ttsModel;
  if (voice) settings.voice = voice;
  return settings;
}

function orderVar<T extends string>(
  env: Env,
  name: string,
  known: readonly T[],
  configured: Partial<Record<string, unknown>>,
  fail: (message: string) => Error,
): T[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return known.filter((v) => configured[v] !== undefined);
  const names = raw
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  for (const n of names) {
    if (!known.includes(n as T)) throw fail(`${name} lists "${n}"; it may list ${known.join(', ')}`);
    if (configured[n] === undefined)
      throw fail(`${name} lists ${n}, which has no ${PREFIX[n as SpeechVendor]}_API_KEY`);
  }
  return [...new Set(names)] as T[];
}

export function speechConfig(env: Env, fail: (message: string) => Error): SpeechConfig {
  const vendors: SpeechConfig['vendors'] = {};
  for (const vendor of SPEECH_VENDORS) {
    const settings = vendorSettings(env, vendor, fail);
    if (settings) vendors[vendor] = settings;
  }
  return {
    vendors,
    stt: orderVar(env, 'PARLEY_STT_PROVIDERS', STT_VENDORS, vendors, fail),
    tts: orderVar(env, 'PARLEY_TTS_PROVIDERS', TTS_VENDORS, vendors, fail),
  };
}
