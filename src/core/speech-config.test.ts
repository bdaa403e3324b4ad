import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('speech vendors in the configuration', () => {
  it('has no hosted vendor by default: calls run on the offline engines', () => {
    expect(loadConfig({}).speech).toEqual({ vendors: {}, stt: [], tts: [] });
  });

  it('reads each vendor by its key, and orders calls by the default order of the configured ones', () => {
    const speech = loadConfig({
      PARLEY_DEEPGRAM_API_KEY: 'dg-key',
      PARLEY_ELEVENLABS_API_KEY: 'el-key',
      PARLEY_ELEVENLABS_VOICE: 'rachel',
      PARLEY_OPENAI_SPEECH_BASE_URL: 'http://127.0.0.1:9000/v1/',
      PARLEY_OPENAI_SPEECH_STT_MODEL: 'whisper-1',
    }).speech;
    expect(speech.vendors).toEqual({
      deepgram: { apiKey: 'dg-key' },
      elevenlabs: { apiKey: 'el-key', voice: 'rachel' },
      openai: { apiKey: '', baseUrl: 'http://127.0.0.1:9000/v1', sttModel: 'whisper-1' },
    });
    expect(speech.stt).toEqual(['deepgram', 'openai']);
    expect(speech.tts).toEqual(['elevenlabs', 'openai']);
  });

  it('takes an explicit order, and names the variable of a bad one', () => {
    const env = { PARLEY_DEEPGRAM_API_KEY: 'k', PARLEY_OPENAI_SPEECH_API_KEY: 'o' };
    expect(loadConfig({ ...env, PARLEY_STT_PROVIDERS: 'openai, deepgram' }).speech.stt).toEqual([
      'openai',
      'deepgram',
    ]);
    expect(() => loadConfig({ ...env, PARLEY_STT_PROVIDERS: 'whisper' })).toThrow(
      /PARLEY_STT_PROVIDERS lists "whisper"/,
    );
    expect(() => loadConfig({ ...env, PARLEY_TTS_PROVIDERS: 'cartesia' })).toThrow(/PARLEY_CARTESIA_API_KEY/);
  });

  it('refuses settings without the key they need, and URLs that are not URLs', () => {
    expect(() => loadConfig({ PARLEY_DEEPGRAM_BASE_URL: 'http://127.0.0.1:1' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_CARTESIA_VOICE: 'x' })).toThrow(
      /PARLEY_CARTESIA_VOICE needs PARLEY_CARTESIA_API_KEY/,
    );
    expect(() => loadConfig({ PARLEY_DEEPGRAM_API_KEY: 'k', PARLEY_DEEPGRAM_BASE_URL: 'nope' })).toThrow(
      /PARLEY_DEEPGRAM_BASE_URL must be/,
    );
  });
});
