import { randomBytes } from 'node:crypto';
import { normalizeE164 } from '../../core/index.ts';
import { MessagingError, type MessagingChannel, type OutboundMessage } from './types.ts';

// The checks every adapter makes before a message leaves the process, so that a bad message
// fails the same way (400 `invalid_message`, not retryable) whichever provider is configured and
// without contacting it.

const CHANNELS: readonly MessagingChannel[] = ['sms', 'whatsapp'];

export function invalidMessage(description: string): MessagingError {
  return new MessagingError(description, 'invalid_message', 400, false);
}

/** True for a number written exactly in E.164 (`+14155550123`) that some country could dial. */
export function isE164(value: unknown): value is string {
  return typeof value === 'string' && /^\+[1-9]\d{1,14}$/.test(value) && normalizeE164(value) === value;
}

/**
 * Checks an outbound message: a known channel, `from` and `to` written in E.164, and either a
 * non-empty body or a template with a non-empty `contentSid` (string variables only). When a
 * template is given, it is what gets sent; `body` is then not sent to the provider.
 */
export function checkOutbound(message: OutboundMessage): void {
  if (!CHANNELS.includes(message.channel)) {
    throw invalidMessage(`unknown channel ${JSON.stringify(message.channel)}: use sms or whatsapp`);
  }
  for (const field of ['from', 'to'] as const) {
    if (!isE164(message[field])) {
      throw invalidMessage(`${field} must be an E.164 number such as +14155550123`);
    }
  }
  const { template, body } = message;
  if (template !== undefined) {
    if (typeof template.contentSid !== 'string' || template.contentSid.trim() === '') {
      throw invalidMessage('a template needs a contentSid');
    }
    for (const [name, value] of Object.entries(template.variables ?? {})) {
      if (typeof value !== 'string') throw invalidMessage(`template variable ${name} must be a string`);
    }
    return;
  }
  if (typeof body !== 'string' || body === '') {
    throw invalidMessage('a message needs a body or a template');
  }
}

/** `SM` followed by 32 hex digits: the shape of a Twilio message SID. */
export function newMessageSid(): string {
  return `SM${randomBytes(16).toString('hex')}`;
}
