import { describe, expect, it } from 'vitest';
import { parseActionConfig } from './actions.ts';

// The config column as the store reads it: SQLite hands back text, PostgreSQL parsed jsonb.

describe('parseActionConfig', () => {
  it('reads text and parsed values alike, typed by the kind', () => {
    const config = { name: 'Front desk', phone: '+14155550100', transfer_mode: 'warm_transfer', x: 1 };
    expect(parseActionConfig('LIVE_TRANSFER', JSON.stringify(config), 'Front desk')).toEqual({
      kind: 'LIVE_TRANSFER',
      config,
    });
    const parsed = parseActionConfig('LIVE_TRANSFER', config, 'Front desk');
    expect(parsed.config).toBe(config);
    // Narrowing on the kind types the configuration.
    if (parsed.kind === 'LIVE_TRANSFER') expect(parsed.config.phone).toBe('+14155550100');
  });

  it("keeps texts the API accepted by code points, and its formats' values", () => {
    // 200 emoji: 200 code points (the API's limit), 400 UTF-16 units.
    const config = { name: '📅'.repeat(200), timezone: 'Europe/Oslo', first_appt_date: '2030-01-05' };
    expect(parseActionConfig('REAL_TIME_BOOKING', config, 'x').config).toBe(config);
  });

  it('keeps the valid fields of a configuration that fails the check', () => {
    const stored = {
      name: 'Front desk',
      phone: 5,
      timeout: 'long',
      human_availability: { timezone: 'UTC', schedule: 'weekdays', active: true },
      extra: { kept: true },
    };
    expect(parseActionConfig('LIVE_TRANSFER', JSON.stringify(stored), 'Front desk').config).toEqual({
      name: 'Front desk',
      extra: { kept: true },
    });
  });

  it("fills a field the kind requires from the action's name or with its empty value", () => {
    expect(
      parseActionConfig('CUSTOM_ACTION', { url: 'https://example.com', headers: 'bad', x: 1 }, 'lookup')
        .config,
    ).toEqual({ name: 'lookup', url: 'https://example.com', x: 1 });
    expect(parseActionConfig('INFORMATION_EXTRACTOR', { description: 'The email' }, 'email').config).toEqual({
      identifier: 'email',
      description: 'The email',
      kind: 'open_question',
    });
    expect(parseActionConfig('CUSTOM_EVAL', { question: { text: 5 } }, 'tone').config).toEqual({
      question: { identifier: 'tone', text: '' },
    });
  });

  it("reads a missing or unreadable column as the kind's empty configuration instead of throwing", () => {
    expect(parseActionConfig('SEND_SMS', null, 'sms').config).toEqual({ name: 'sms', content: '' });
    expect(parseActionConfig('INCALL_SMS', '{"name": ', 'sms').config).toEqual({ name: 'sms' });
    expect(parseActionConfig('REAL_TIME_BOOKING', '"just text"', 'book').config).toEqual({
      name: 'book',
      timezone: '',
    });
  });
});
