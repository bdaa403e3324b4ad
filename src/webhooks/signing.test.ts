import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../store/index.ts';
import { signWebhook } from './index.ts';

// Signing is checked with the reference library, as receivers verify.

describe('signWebhook', () => {
  const body = '{"status":"completed","call":{"call_id":"c"}}';
  const now = Date.now();

  it('makes Standard Webhooks headers that the library verifies', () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: 'msg-1', timestampMs: now, body, secrets: [secret] });
    expect(headers).toMatchObject({
      'webhook-id': 'msg-1',
      'webhook-timestamp': String(Math.floor(now / 1000)),
      'content-type': 'application/json',
      'user-agent': 'Parley-Webhooks/1',
    });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body + ' ', headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('signs with every secret given, space-separated, so either verifies', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signWebhook({ id: 'msg-2', timestampMs: now, body, secrets: [current, previous] });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('needs a secret', () => {
    expect(() => signWebhook({ id: 'x', timestampMs: now, body, secrets: [] })).toThrow();
  });
});
