import type {
  Clock,
  Logger,
  SpeechConfig,
  SpeechVendor,
  SttVendor,
  TtsVendor,
  VendorSettings,
} from '../core/index.ts';
import {
  createFailoverSTT,
  createFailoverTTS,
  type FailoverTTSEntry,
  type HostedSTT,
  type HostedTTS,
  type ProviderHealth,
  type SpeechSwitch,
  type STT,
  type VendorVoice,
  type VoiceTuning,
} from '../providers/index.ts';
import type { SampleRate } from '../media/index.ts';
import type {
  AgentSpeechFields,
  CallSpeechPlan,
  OfflineSpeech,
  ProviderStatus,
  SpeechVendorFactories,
  VoiceChoice,
} from './types.ts';
import { vendorOrder, type EffectiveVendor, type VendorOrder, type WorkspaceVendor } from './vendors.ts';

// The speech providers of the installation and of each workspace: builds each vendor's adapter
// once per configuration, asks vendors whether their settings work (at start, on the provider
// read, when a workspace sets them) and which voices they have, and gives each call its
// failover chains and voice (docs/speech-providers.md).

export interface SpeechRegistryOptions {
  config: SpeechConfig;
  factories: SpeechVendorFactories;
  /** The offline engines; null on a node that runs no calls (API only): reads still work. */
  offline: OfflineSpeech | null;
  /** The workspace's own vendor settings (the store). */
  workspaceVendors: (workspaceId: string) => Promise<WorkspaceVendor[]>;
  clock: Clock;
  logger: Logger;
  /** Failover bounds (defaults: the wrappers' own). */
  sttFinalTimeoutMs?: number;
  ttsAudioTimeoutMs?: number;
  /** How long a health or a voice list is trusted (default 60 000 ms). */
  cacheMs?: number;
  /** A vendor's voice list or health check may take this long at most (default 3000 ms). */
  askTimeoutMs?: number;
}

/** What a call is: its agent's fields, its leg's rate. */
export interface CallSpeechRequest {
  workspaceId: string;
  agent: AgentSpeechFields & {
    language?: string | null;
    voice_stability?: number | null;
    voice_similarity_boost?: number | null;
    voice_style?: number | null;
  };
  sampleRate?: SampleRate;
}

export interface SpeechRegistry {
  /** The call's speech, or why it has none (no recognizer at all). */
  forCall(request: CallSpeechRequest): Promise<CallSpeechPlan | { missing: string }>;
  /** The vendors a workspace's calls use, with whether their settings work. */
  providers(workspaceId: string): Promise<ProviderStatus[]>;
  /** Asks `vendor` whether `settings` work, without keeping them. */
  check(vendor: SpeechVendor, settings: VendorSettings): Promise<ProviderHealth>;
  /** Every voice the workspace's calls can speak with, provider by provider. */
  voices(workspaceId: string): Promise<{ provider: string; voices: VendorVoice[]; available: boolean }[]>;
  /** The voice the agent's calls speak with, and why that one; null on a node that runs no calls. */
  voiceOf(workspaceId: string, agent: AgentSpeechFields): Promise<VoiceChoice | null>;
  /** A sample of a voice the workspace's calls can speak with; null: no configured provider has it. */
  preview(workspaceId: string, voiceId: string): Promise<{ samples: Int16Array; sampleRate: number } | null>;
  /** Checks the server's own vendors and logs what is wrong (never the keys). */
  checkServer(): Promise<void>;
}

/** What a voice preview says, and how long its synthesis may take. */
export const PREVIEW_TEXT = 'Hello! Thanks for calling. How can I help you today?';
const PREVIEW_TIMEOUT_MS = 15_000;

interface Cached<T> {
  value: Promise<T>;
  at: number;
}

interface Built {
  stt?: HostedSTT;
  tts?: HostedTTS;
  health?: Cached<ProviderHealth>;
  voices?: Cached<VendorVoice[]>;
}

export function createSpeechRegistry(options: SpeechRegistryOptions): SpeechRegistry {
  const { config, factories, offline, clock, logger } = options;
  const cacheMs = options.cacheMs ?? 60_000;
  const askTimeoutMs = options.askTimeoutMs ?? 3000;
  const built = new Map<string, Built>();
  let checks = 0;

  const order = async (workspaceId: string): Promise<VendorOrder> =>
    vendorOrder(config, workspaceId, await options.workspaceVendors(workspaceId));

  function builtFor(vendor: EffectiveVendor): Built {
    let entry = built.get(vendor.key);
    if (!entry) {
      entry = {};
      const stt = factories.stt[vendor.vendor as SttVendor];
      const tts = factories.tts[vendor.vendor as TtsVendor];
      if (stt) entry.stt = stt(vendor.settings);
      if (tts) entry.tts = tts(vendor.settings);
      built.set(vendor.key, entry);
    }
    return entry;
  }

  /** Asks with a bound; a vendor that does not answer in time is unreachable. */
  function ask<T>(what: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(askTimeoutMs);
    return what(signal);
  }

  /**
   * A cached answer, asked again once older than `cacheMs`. Once there is an answer, a call never
   * waits for the vendor: the stale answer serves while the fresh one comes.
   */
  function cached<T>(
    current: Cached<T> | undefined,
    keep: (c: Cached<T>) => void,
    fetch: () => Promise<T>,
  ): Promise<T> {
    if (current && clock.now() - current.at < cacheMs) return current.value;
    const fresh = fetch();
    const next = { value: fresh, at: clock.now() };
    if (!current) {
      keep(next);
      return fresh;
    }
    // Kept once it came, so a slow vendor never leaves the cache empty.
    current.at = clock.now();
    void fresh.then(
      () => keep(next),
      () => undefined,
    );
    return current.value;
  }

  function health(vendor: EffectiveVendor): Promise<ProviderHealth> {
    const entry = builtFor(vendor);
    return cached(
      entry.health,
      (c) => (entry.health = c),
      () => checkBuilt(entry),
    );
  }

  async function checkBuilt(entry: Built): Promise<ProviderHealth> {
    for (const provider of [entry.stt, entry.tts]) {
      if (!provider) continue;
      const found = await ask((signal) => provider.check(signal)).catch((err: unknown): ProviderHealth => ({
        ok: false,
        problem: 'unreachable',
        reason: `the check failed: ${err instanceof Error ? err.message : String(err)}`,
      }));
      if (!found.ok) return found;
    }
    return { ok: true };
  }

  function voicesOf(vendor: EffectiveVendor): Promise<VendorVoice[]> {
    const entry = builtFor(vendor);
    const tts = entry.tts;
    if (!tts) return Promise.resolve([]);
    return cached(
      entry.voices,
      (c) => (entry.voices = c),
      () => ask((signal) => tts.voices(signal)).catch(() => [] as VendorVoice[]),
    );
  }

  /** A vendor known to be misconfigured is left out of calls (it would only fail over). */
  async function usable(vendor: EffectiveVendor): Promise<boolean> {
    const found = await health(vendor);
    return found.ok || found.problem === 'unreachable' || found.problem === 'bad_response';
  }

  async function sttChain(found: VendorOrder, preferred: string | null | undefined): Promise<STT[]> {
    const chain: STT[] = [];
    const added = new Set<SttVendor>();
    const add = async (vendor: SttVendor, model?: string) => {
      const effective = found.vendors.get(vendor);
      if (added.has(vendor) || !effective || !(await usable(effective))) return;
      added.add(vendor);
      const settings = model ? { ...effective.settings, sttModel: model } : effective.settings;
      const stt = model
        ? builtFor({ ...effective, settings, key: `${effective.key}:${model}` }).stt
        : builtFor(effective).stt;
      if (stt && !chain.includes(stt)) chain.push(stt);
    };
    const local = offline?.stt ?? null;
    if (preferred === 'pocketsphinx' && local) chain.push(local);
    if (preferred === 'deepgram') await add('deepgram');
    if (preferred === 'deepgram-nova-3') await add('deepgram', 'nova-3');
    if (preferred === 'openai') await add('openai');
    for (const vendor of found.stt) await add(vendor);
    if (local && !chain.includes(local)) chain.push(local);
    return chain;
  }

  /** The usable hosted synthesizers in order, and who serves a voice id. */
  async function synthesizers(found: VendorOrder) {
    const hosted: { vendor: EffectiveVendor; tts: HostedTTS }[] = [];
    for (const vendor of found.tts) {
      const effective = found.vendors.get(vendor);
      const tts = effective ? builtFor(effective).tts : undefined;
      if (effective && tts && (await usable(effective))) hosted.push({ vendor: effective, tts });
    }
    const lists = await Promise.all(hosted.map((h) => voicesOf(h.vendor)));
    const serving = (id: string | null | undefined): FailoverTTSEntry | null => {
      if (!id) return null;
      const at = lists.findIndex((voices) => voices.some((v) => v.id === id));
      const found = hosted[at];
      if (found) return { tts: found.tts, voice: id };
      return offline?.voices.includes(id) ? { tts: offline.tts, voice: id } : null;
    };
    return { hosted, serving };
  }

  async function ttsChain(
    found: VendorOrder,
    agent: AgentSpeechFields,
  ): Promise<{ chain: FailoverTTSEntry[]; voice: VoiceChoice } | null> {
    const { hosted, serving } = await synthesizers(found);
    const requested = agent.voice_id?.trim() || null;
    const chain: FailoverTTSEntry[] = [];
    const own = serving(requested);
    const fallback = own ? null : serving(agent.fallback_voice_id);
    if (own) chain.push(own);
    else if (fallback) chain.push(fallback);
    for (const h of hosted)
      if (!chain.some((e) => e.tts === h.tts))
        chain.push({ tts: h.tts, ...(h.vendor.settings.voice ? { voice: h.vendor.settings.voice } : {}) });
    if (offline && !chain.some((e) => e.tts === offline.tts))
      chain.push({ tts: offline.tts, voice: offline.voice });
    const first = chain[0];
    if (!first) return null;
    const voice: VoiceChoice = {
      requested,
      available: own !== null,
      voice: first.voice ?? 'default',
      provider: first.tts.name,
    };
    if (requested && !own)
      voice.reason = fallback
        ? `no configured provider serves voice "${requested}": speaking with fallback_voice_id`
        : `no configured provider serves voice "${requested}": speaking with the default voice`;
    return { chain, voice };
  }

  return {
    async forCall(request) {
      const found = await order(request.workspaceId);
      if (!offline) return { missing: 'this node runs no calls' };
      const stts = await sttChain(found, request.agent.transcriber_provider);
      if (stts.length === 0) return { missing: offline.sttMissing ?? 'no speech recognizer is configured' };
      const chosen = await ttsChain(found, request.agent);
      if (!chosen) return { missing: 'no speech synthesizer is configured' };
      const { chain, voice } = chosen;
      const switches: SpeechSwitch[] = [];
      const onSwitch = (change: SpeechSwitch) => {
        switches.push(change);
        logger.warn(
          { kind: change.kind, from: change.from, to: change.to, reason: change.reason },
          'speech provider dropped for the rest of the call',
        );
      };
      const sampleRate = request.sampleRate ? { sampleRate: request.sampleRate } : {};
      const tuning: VoiceTuning = {};
      if (typeof request.agent.voice_stability === 'number') tuning.stability = request.agent.voice_stability;
      if (typeof request.agent.voice_similarity_boost === 'number')
        tuning.similarityBoost = request.agent.voice_similarity_boost;
      if (typeof request.agent.voice_style === 'number') tuning.style = request.agent.voice_style;
      const language = request.agent.language ? { language: request.agent.language } : {};
      const stt =
        stts.length === 1
          ? stts[0]!
          : createFailoverSTT({
              chain: stts,
              clock,
              onSwitch,
              defaults: sampleRate,
              ...(options.sttFinalTimeoutMs ? { finalTimeoutMs: options.sttFinalTimeoutMs } : {}),
            });
      const tts = createFailoverTTS({
        chain,
        clock,
        onSwitch,
        defaults: { ...sampleRate, ...language, ...(Object.keys(tuning).length > 0 ? { tuning } : {}) },
        ...(options.ttsAudioTimeoutMs ? { audioTimeoutMs: options.ttsAudioTimeoutMs } : {}),
      });
      return {
        speech: { vad: offline.vad, stt, tts, voice: voice.voice, voices: [voice.voice] },
        report: () => ({
          stt: stts.map((s) => s.name),
          tts: chain.map((e) => e.tts.name),
          voice,
          switches: [...switches],
        }),
      };
    },

    async providers(workspaceId) {
      const found = await order(workspaceId);
      const now = clock.now();
      const statuses: ProviderStatus[] = [];
      for (const effective of found.vendors.values()) {
        const entry = builtFor(effective);
        const kinds: ('stt' | 'tts')[] = [];
        if (entry.stt) kinds.push('stt');
        if (entry.tts) kinds.push('tts');
        statuses.push({
          vendor: effective.vendor,
          source: effective.source,
          kinds,
          baseUrl: effective.settings.baseUrl ?? null,
          sttModel: effective.settings.sttModel ?? null,
          ttsModel: effective.settings.ttsModel ?? null,
          voice: effective.settings.voice ?? null,
          apiKeySet: effective.settings.apiKey !== '',
          health: await health(effective),
          checkedAt: entry.health?.at ?? now,
        });
      }
      const builtin = (
        vendor: 'pocketsphinx' | 'flite',
        kind: 'stt' | 'tts',
        ok: ProviderHealth,
        voice: string | null,
      ) =>
        statuses.push({
          vendor,
          source: 'builtin',
          kinds: [kind],
          baseUrl: null,
          sttModel: null,
          ttsModel: null,
          voice,
          apiKeySet: false,
          health: ok,
          checkedAt: now,
        });
      if (!offline) return statuses;
      builtin(
        'pocketsphinx',
        'stt',
        offline.stt
          ? { ok: true }
          : { ok: false, problem: 'unreachable', reason: offline.sttMissing ?? 'not installed' },
        null,
      );
      builtin('flite', 'tts', { ok: true }, offline.voice);
      return statuses;
    },

    async check(vendor, settings) {
      checks += 1;
      const key = `check:${vendor}:${checks}`;
      const entry = builtFor({ vendor, source: 'workspace', settings, key });
      built.delete(key);
      return checkBuilt(entry);
    },

    async voices(workspaceId) {
      const found = await order(workspaceId);
      const out: { provider: string; voices: VendorVoice[]; available: boolean }[] = [];
      for (const vendor of found.tts) {
        const effective = found.vendors.get(vendor);
        if (!effective || !builtFor(effective).tts) continue;
        const available = await usable(effective);
        out.push({ provider: vendor, voices: available ? await voicesOf(effective) : [], available });
      }
      return out;
    },

    async voiceOf(workspaceId, agent) {
      return (await ttsChain(await order(workspaceId), agent))?.voice ?? null;
    },

    async preview(workspaceId, voiceId) {
      const entry = (await synthesizers(await order(workspaceId))).serving(voiceId);
      if (!entry) return null;
      const stream = entry.tts.stream({
        ...(entry.voice ? { voice: entry.voice } : {}),
        signal: AbortSignal.timeout(PREVIEW_TIMEOUT_MS),
      });
      stream.pushText(PREVIEW_TEXT);
      stream.endInput();
      const pieces: Int16Array[] = [];
      let sampleRate = 0;
      for await (const { frame } of stream.audio) {
        sampleRate ||= frame.sampleRate;
        if (frame.sampleRate === sampleRate) pieces.push(frame.samples);
      }
      const samples = new Int16Array(pieces.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of pieces) {
        samples.set(p, at);
        at += p.length;
      }
      return { samples, sampleRate: sampleRate || entry.tts.sampleRate };
    },

    async checkServer() {
      const found = vendorOrder(config, '', []);
      await Promise.all(
        [...found.vendors.values()].map(async (effective) => {
          const result = await health(effective);
          // The voice lists too, so the first calls do not wait for them.
          await voicesOf(effective);
          if (result.ok) logger.info({ vendor: effective.vendor }, 'speech provider ready');
          else
            logger.warn(
              { vendor: effective.vendor, problem: result.problem, reason: result.reason },
              'speech provider settings do not work: its calls fall back to the next provider',
            );
        }),
      );
    },
  };
}
