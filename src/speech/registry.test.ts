import { describe, expect, it } from 'vitest';
import {
  createLogger,
  createManualClock,
  silentLogger,
  type SpeechConfig,
  type VendorSettings,
} from '../core/index.ts';
import { dataSpeechFrames } from '../media/index.ts';
import type { HostedSTT, HostedTTS, ProviderHealth, STTResult, TTSOptions } from '../providers/index.ts';
import { createBrokenSTT, createFakeSTT, createFakeTTS, createFakeVAD } from '../providers/testing/index.ts';
import { createSpeechRegistry, type SpeechRegistryOptions } from './registry.ts';
import type { CallSpeechPlan, OfflineSpeech } from './types.ts';
import type { WorkspaceVendor } from './vendors.ts';

// The registry on fakes of hosted vendors (the adapters' own suites test their wire protocols):
// which providers a call gets, in which order, with which voice, and what the record says.

const ok: ProviderHealth = { ok: true };

function hostedSTT(name: string, health: ProviderHealth = ok, broken = false): HostedSTT {
  const inner = broken ? createBrokenSTT(createFakeSTT(), { kind: 'refuse' }, name) : createFakeSTT();
  return { name, partials: inner.partials, stream: (o) => inner.stream(o), check: async () => health };
}

/** Every TTS stream a hosted fake opened, with its options. */
let asked: { tts: string; options: TTSOptions | undefined }[] = [];

function hostedTTS(name: string, voices: string[], health: ProviderHealth = ok): HostedTTS {
  const inner = createFakeTTS();
  return {
    name,
    sampleRate: inner.sampleRate,
    stream: (o) => {
      asked.push({ tts: name, options: o });
      return inner.stream(o);
    },
    check: async () => health,
    voices: async () =>
      voices.map((id) => ({ id, name: id, gender: null, languages: ['en-US'], description: '' })),
  };
}

const offline = (stt = true): OfflineSpeech => ({
  vad: createFakeVAD(),
  stt: stt ? { ...createFakeSTT(), name: 'pocketsphinx' } : null,
  ...(stt ? {} : { sttMissing: 'PocketSphinx is not installed' }),
  tts: { ...createFakeTTS(), name: 'flite' },
  voice: 'kal16',
  voices: ['kal16', 'slt'],
});

interface Setup {
  config?: Partial<SpeechConfig>;
  own?: WorkspaceVendor[];
  health?: Partial<Record<string, ProviderHealth>>;
  brokenStt?: boolean;
  offlineStt?: boolean;
}

function registry(setup: Setup = {}) {
  asked = [];
  const made: { vendor: string; kind: string; settings: VendorSettings }[] = [];
  const health = (key: string) => setup.health?.[key] ?? ok;
  const options: SpeechRegistryOptions = {
    config: { vendors: {}, stt: [], tts: [], ...setup.config },
    factories: {
      stt: {
        deepgram: (settings) => {
          made.push({ vendor: 'deepgram', kind: 'stt', settings });
          return hostedSTT(`deepgram(${settings.apiKey})`, health(settings.apiKey), setup.brokenStt);
        },
        openai: (settings) => {
          made.push({ vendor: 'openai', kind: 'stt', settings });
          return hostedSTT(`openai-stt(${settings.apiKey})`, health(settings.apiKey));
        },
      },
      tts: {
        elevenlabs: (settings) => {
          made.push({ vendor: 'elevenlabs', kind: 'tts', settings });
          return hostedTTS(`elevenlabs(${settings.apiKey})`, ['rachel', 'adam'], health(settings.apiKey));
        },
        cartesia: (settings) => {
          made.push({ vendor: 'cartesia', kind: 'tts', settings });
          return hostedTTS(`cartesia(${settings.apiKey})`, ['sonic-voice'], health(settings.apiKey));
        },
      },
    },
    offline: offline(setup.offlineStt ?? true),
    workspaceVendors: async () => setup.own ?? [],
    clock: createManualClock(),
    logger: silentLogger(),
  };
  return { speech: createSpeechRegistry(options), made, asked };
}

const server: Partial<SpeechConfig> = {
  vendors: {
    deepgram: { apiKey: 'srv-dg' },
    elevenlabs: { apiKey: 'srv-el', voice: 'adam' },
    cartesia: { apiKey: 'srv-ca' },
  },
  stt: ['deepgram'],
  tts: ['elevenlabs', 'cartesia'],
};

function planOf(found: CallSpeechPlan | { missing: string }): CallSpeechPlan {
  if ('missing' in found) throw new Error(found.missing);
  return found;
}

describe('speech registry: a call gets', () => {
  it('the offline engines alone when no vendor is configured', async () => {
    const plan = planOf(await registry().speech.forCall({ workspaceId: 'w', agent: {} }));
    expect(plan.report()).toEqual({
      stt: ['pocketsphinx'],
      tts: ['flite'],
      voice: { requested: null, available: false, voice: 'kal16', provider: 'flite' },
      switches: [],
    });
    expect(plan.speech.stt.name).toBe('pocketsphinx');
  });

  it("its agent's hosted voice first, the other vendors next, the offline voice last", async () => {
    const plan = planOf(
      await registry({ config: server }).speech.forCall({
        workspaceId: 'w',
        agent: { voice_id: 'sonic-voice' },
      }),
    );
    expect(plan.report()).toMatchObject({
      stt: ['deepgram(srv-dg)', 'pocketsphinx'],
      tts: ['cartesia(srv-ca)', 'elevenlabs(srv-el)', 'flite'],
      voice: {
        requested: 'sonic-voice',
        available: true,
        voice: 'sonic-voice',
        provider: 'cartesia(srv-ca)',
      },
    });
  });

  it('an offline voice when the agent names one, and the vendors after it', async () => {
    const plan = planOf(
      await registry({ config: server }).speech.forCall({ workspaceId: 'w', agent: { voice_id: 'slt' } }),
    );
    expect(plan.report()).toMatchObject({
      tts: ['flite', 'elevenlabs(srv-el)', 'cartesia(srv-ca)'],
      voice: { voice: 'slt', provider: 'flite', available: true },
    });
  });

  it('fallback_voice_id, said so, when no configured vendor serves voice_id', async () => {
    const { speech } = registry({ config: server });
    const plan = planOf(
      await speech.forCall({
        workspaceId: 'w',
        agent: { voice_id: 'eleven_turbo_v2', fallback_voice_id: 'rachel' },
      }),
    );
    expect(plan.report().voice).toEqual({
      requested: 'eleven_turbo_v2',
      available: false,
      voice: 'rachel',
      provider: 'elevenlabs(srv-el)',
      reason: 'no configured provider serves voice "eleven_turbo_v2": speaking with fallback_voice_id',
    });
    const unknown = planOf(await speech.forCall({ workspaceId: 'w', agent: { voice_id: 'nobody' } }));
    expect(unknown.report().voice).toMatchObject({
      available: false,
      voice: 'adam',
      provider: 'elevenlabs(srv-el)',
      reason: 'no configured provider serves voice "nobody": speaking with the default voice',
    });
  });

  it("the workspace's own vendor settings before the server's, its own vendors first", async () => {
    const own: WorkspaceVendor[] = [
      { vendor: 'openai', settings: { apiKey: 'ws-oa' }, updatedAt: 1 },
      { vendor: 'deepgram', settings: { apiKey: 'ws-dg' }, updatedAt: 1 },
    ];
    const { speech } = registry({ config: server, own });
    const plan = planOf(await speech.forCall({ workspaceId: 'w', agent: {} }));
    expect(plan.report().stt).toEqual(['deepgram(ws-dg)', 'openai-stt(ws-oa)', 'pocketsphinx']);
  });

  it('its transcriber_provider first, with the model it names', async () => {
    const { speech, made } = registry({
      config: {
        vendors: { deepgram: { apiKey: 'k' }, openai: { apiKey: 'o' } },
        stt: ['openai', 'deepgram'],
      },
    });
    const plan = planOf(
      await speech.forCall({ workspaceId: 'w', agent: { transcriber_provider: 'deepgram-nova-3' } }),
    );
    expect(plan.report().stt).toEqual(['deepgram(k)', 'openai-stt(o)', 'pocketsphinx']);
    expect(made.filter((m) => m.kind === 'stt').map((m) => m.settings)).toContainEqual({
      apiKey: 'k',
      sttModel: 'nova-3',
    });
    const offlineFirst = planOf(
      await speech.forCall({ workspaceId: 'w', agent: { transcriber_provider: 'pocketsphinx' } }),
    );
    expect(offlineFirst.report().stt).toEqual(['pocketsphinx', 'openai-stt(o)', 'deepgram(k)']);
  });

  it('no vendor whose key the vendor refused', async () => {
    const { speech } = registry({
      config: server,
      health: { 'srv-el': { ok: false, problem: 'bad_key', reason: 'the vendor refused the key' } },
    });
    const plan = planOf(await speech.forCall({ workspaceId: 'w', agent: { voice_id: 'rachel' } }));
    expect(plan.report().tts).toEqual(['cartesia(srv-ca)', 'flite']);
    expect(plan.report().voice).toMatchObject({ available: false, provider: 'cartesia(srv-ca)' });
  });

  it('hosted recognition without PocketSphinx; nothing to hear with says why', async () => {
    const hosted = planOf(
      await registry({ config: server, offlineStt: false }).speech.forCall({ workspaceId: 'w', agent: {} }),
    );
    expect(hosted.report().stt).toEqual(['deepgram(srv-dg)']);
    expect(await registry({ offlineStt: false }).speech.forCall({ workspaceId: 'w', agent: {} })).toEqual({
      missing: 'PocketSphinx is not installed',
    });
  });

  it('a record of the provider dropped mid-call, and the replacement hears the utterance', async () => {
    const plan = planOf(
      await registry({ config: server, brokenStt: true }).speech.forCall({ workspaceId: 'w', agent: {} }),
    );
    const stream = plan.speech.stt.stream();
    const got: STTResult[] = [];
    const reading = (async () => {
      for await (const r of stream.results) got.push(r);
    })();
    for (const frame of dataSpeechFrames('yes I own my home')) stream.push(frame);
    stream.flush();
    await new Promise((resolve) => setImmediate(resolve));
    stream.close();
    await reading;
    expect(got.filter((r) => r.kind === 'final').map((r) => r.text)).toEqual(['yes I own my home']);
    expect(plan.report().switches).toMatchObject([
      {
        kind: 'stt',
        from: 'deepgram(srv-dg)',
        to: 'pocketsphinx',
        reason: 'deepgram(srv-dg) refused the connection',
      },
    ]);
  });
});

describe('speech registry: what the vendors are asked for', () => {
  it("the line's rate, the agent's voice tuning and language, and its voice", async () => {
    const { speech, asked } = registry({ config: server });
    const plan = planOf(
      await speech.forCall({
        workspaceId: 'w',
        agent: {
          voice_id: 'rachel',
          voice_stability: 0.3,
          voice_similarity_boost: 0.8,
          voice_style: 0.1,
          language: 'en-GB',
        },
        sampleRate: 8000,
      }),
    );
    const stream = plan.speech.tts.stream({ speed: 1.2 });
    stream.close();
    expect(asked).toEqual([
      {
        tts: 'elevenlabs(srv-el)',
        options: {
          sampleRate: 8000,
          language: 'en-GB',
          tuning: { stability: 0.3, similarityBoost: 0.8, style: 0.1 },
          speed: 1.2,
          voice: 'rachel',
          signal: expect.any(AbortSignal),
        },
      },
    ]);
  });
});

describe('speech registry: what vendors said is cached', () => {
  it('for a minute; then a stale answer serves while the fresh one comes, so calls never wait', async () => {
    const clock = createManualClock();
    let voices = ['rachel'];
    let asks = 0;
    const tts: HostedTTS = {
      ...hostedTTS('elevenlabs', []),
      voices: async () => {
        asks += 1;
        return voices.map((id) => ({ id, name: id, gender: null, languages: [], description: '' }));
      },
    };
    const speech = createSpeechRegistry({
      config: { vendors: { elevenlabs: { apiKey: 'k' } }, stt: [], tts: ['elevenlabs'] },
      factories: { stt: {}, tts: { elevenlabs: () => tts } },
      offline: offline(),
      workspaceVendors: async () => [],
      clock,
      logger: silentLogger(),
    });
    const ids = async () => (await speech.voices('w'))[0]?.voices.map((v) => v.id);
    expect(await ids()).toEqual(['rachel']);
    voices = ['adam'];
    clock.advance(59_000);
    expect(await ids()).toEqual(['rachel']);
    expect(asks).toBe(1);
    clock.advance(2_000);
    expect(await ids()).toEqual(['rachel']);
    expect(asks).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await ids()).toEqual(['adam']);
    expect(asks).toBe(2);
  });
});

describe('speech registry: at start', () => {
  it('says which server vendor settings do not work, never with their key', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const speech = createSpeechRegistry({
      config: server as SpeechConfig,
      factories: {
        stt: {
          deepgram: (s) =>
            hostedSTT('deepgram', { ok: false, problem: 'bad_key', reason: `refused ${s.apiKey.length}` }),
        },
        tts: {
          elevenlabs: () => hostedTTS('elevenlabs', []),
          cartesia: () =>
            hostedTTS('cartesia', [], { ok: false, problem: 'unreachable', reason: 'connection refused' }),
        },
      },
      offline: offline(),
      workspaceVendors: async () => [],
      clock: createManualClock(),
      logger,
    });
    await speech.checkServer();
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.filter((l) => l.level === 40).map((l) => [l.vendor, l.problem])).toEqual([
      ['deepgram', 'bad_key'],
      ['cartesia', 'unreachable'],
    ]);
    expect(logged.filter((l) => l.level === 30).map((l) => l.vendor)).toEqual(['elevenlabs']);
    expect(lines.join('\n')).not.toMatch(/srv-dg|srv-el|srv-ca/);
  });
});

describe('speech registry: the provider read', () => {
  it('lists each vendor with its source and health, never its key, then the builtin engines', async () => {
    const { speech } = registry({
      config: server,
      own: [{ vendor: 'elevenlabs', settings: { apiKey: 'ws-el', voice: 'rachel' }, updatedAt: 5 }],
      health: { 'srv-ca': { ok: false, problem: 'bad_key', reason: 'the vendor refused the key' } },
    });
    const statuses = await speech.providers('w');
    expect(JSON.stringify(statuses)).not.toMatch(/ws-el|srv-dg|srv-ca/);
    expect(statuses.map((s) => [s.vendor, s.source, s.kinds, s.health.ok])).toEqual([
      ['elevenlabs', 'workspace', ['tts'], true],
      ['deepgram', 'server', ['stt'], true],
      ['cartesia', 'server', ['tts'], false],
      ['pocketsphinx', 'builtin', ['stt'], true],
      ['flite', 'builtin', ['tts'], true],
    ]);
    expect(statuses[0]).toMatchObject({ voice: 'rachel', apiKeySet: true });
  });

  it('checks settings without keeping them', async () => {
    const { speech } = registry({ health: { bad: { ok: false, problem: 'bad_key', reason: 'refused' } } });
    expect(await speech.check('elevenlabs', { apiKey: 'good' })).toEqual({ ok: true });
    expect(await speech.check('elevenlabs', { apiKey: 'bad' })).toEqual({
      ok: false,
      problem: 'bad_key',
      reason: 'refused',
    });
    expect(await speech.providers('w')).toHaveLength(2);
  });

  it("lists each vendor's voices, none for a vendor whose key was refused", async () => {
    const { speech } = registry({
      config: server,
      health: { 'srv-ca': { ok: false, problem: 'bad_key', reason: 'refused' } },
    });
    const voices = await speech.voices('w');
    expect(voices.map((v) => [v.provider, v.available, v.voices.map((x) => x.id)])).toEqual([
      ['elevenlabs', true, ['rachel', 'adam']],
      ['cartesia', false, []],
    ]);
  });
});
