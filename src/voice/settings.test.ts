import { describe, expect, it } from 'vitest';
import { DEFAULT_VOICE_SETTINGS, voiceSettingsOf } from './settings.ts';

describe('voice settings of an agent', () => {
  it('defaults when nothing is set', () => {
    expect(voiceSettingsOf({})).toEqual(DEFAULT_VOICE_SETTINGS);
  });

  it('maps the published fields to ms and typed values', () => {
    const s = voiceSettingsOf({
      greeting_message: ' Hello there ',
      greeting_message_mode: 'human',
      greeting_message_human_talk_timeout: 7,
      initial_pause_seconds: 1.5,
      greeting_interruptible: true,
      patience_level: 'high',
      min_words_to_interrupt: '3',
      interruption_fade_out: 4,
      allowed_idle_time_seconds: 45,
      send_user_idle_reminders: true,
      reminder_after_idle_time_seconds: 12,
      reminder_after_idle_message: 'Hello?',
      max_duration: { duration_seconds: 300, is_enabled: true },
      speech_while_using_the_tool: 'One moment.',
      voice_speed: 1.2,
      voice_volume: 0.8,
      synthesizer_filter_words: ['um', ' ', 'uh'],
      transcriber_keywords: ['Parley'],
      background_noise: { enabled: true, type: 'office', volume: 30 },
      voicemail_message: {
        enabled: true,
        mode: 'exact_message',
        exact_message: 'Call us back.',
        prompt: 'x',
      },
      language: 'en-US',
    });
    expect(s).toEqual({
      greetingMode: 'human',
      humanTalkTimeoutMs: 7_000,
      humanTimeoutLine: 'Hello there',
      initialPauseMs: 1_500,
      greetingInterruptible: true,
      patience: 'high',
      minWordsToInterrupt: 3,
      fadeOutFrames: 4,
      idle: { allowedMs: 45_000, reminder: { afterMs: 12_000, message: 'Hello?' } },
      maxDurationMs: 300_000,
      toolWaitLine: 'One moment.',
      voiceSpeed: 1.2,
      voiceVolume: 0.8,
      filterWords: ['um', 'uh'],
      keywords: ['Parley'],
      backgroundNoise: { type: 'office', volume: 30 },
      voicemailMessage: 'Call us back.',
      language: 'en-US',
    });
  });

  it('falls back or clamps on values out of range', () => {
    const s = voiceSettingsOf({
      greeting_message_mode: 'robot' as never,
      patience_level: 'extreme' as never,
      min_words_to_interrupt: '9',
      allowed_idle_time_seconds: -5,
      max_duration: { duration_seconds: 600, is_enabled: false },
      voice_speed: 10,
      voice_volume: Number.NaN,
      background_noise: { enabled: false, type: 'cafe', volume: 50 },
      voicemail_message: { enabled: true, mode: 'prompt', prompt: '  ' },
    });
    expect(s.greetingMode).toBe('agent_static');
    expect(s.patience).toBe('medium');
    expect(s.minWordsToInterrupt).toBe(5);
    expect(s.idle.allowedMs).toBe(30_000);
    expect(s.maxDurationMs).toBeNull();
    expect(s.voiceSpeed).toBe(2);
    expect(s.voiceVolume).toBe(1);
    expect(s.backgroundNoise).toBeNull();
    expect(s.voicemailMessage).toBeNull();
    expect(voiceSettingsOf({ min_words_to_interrupt: '0' }).minWordsToInterrupt).toBe(0);
    expect(
      voiceSettingsOf({ voicemail_message: { enabled: true, mode: 'prompt', prompt: 'Ask them to call.' } })
        .voicemailMessage,
    ).toBe('Ask them to call.');
  });
});
