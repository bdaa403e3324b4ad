import { verifyTwilioSignature } from '../../core/index.ts';
import { checkOutbound, invalidMessage } from './outbound.ts';
import {
  MessagingError,
  type InboundMessage,
  type InboundParser,
  type Messaging,
  type SentMessage,
} from './types.ts';

// Twilio adapter: outbound messages through the Messages REST API
// (POST /2010-04-01/Accounts/{AccountSid}/Messages.json, HTTP Basic auth with the account SID and
// auth token, form-encoded To/From/Body or ContentSid/ContentVariables; WhatsApp addresses are
// `whatsapp:+E164`), and inbound messages through Twilio's messaging webhook, whose
// X-Twilio-Signature is checked before anything in it is believed.
//
// Failures map to MessagingError:
//   400 from Twilio                → 400 `messaging_rejected`, not retryable (Twilio's message)
//   other 4xx (401, 403, 404...)   → 502 `messaging_rejected`, not retryable (account/config)
//   429                            → 503 `messaging_rate_limited`, retryable
//   5xx or a network failure       → 502 `messaging_unavailable`, retryable
//   no answer within timeoutMs     → 504 `messaging_timeout`, retryable
//   an unreadable 2xx answer       → 502 `messaging_bad_response`, not retryable
//   status failed/undelivered      → 502 `undeliverable`, not retryable
//   the caller's signal aborted    → 503 `messaging_aborted`, not retryable
// The cause of a Twilio error is its error JSON ({code, message, more_info, status}).

export interface TwilioMessagingOptions {
  accountSid: string;
  authToken: string;
  /** Default https://api.twilio.com. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** How long one request may take, answer included; default 15 s. */
  timeoutMs?: number;
}

/** Twilio's error body. */
export interface TwilioErrorBody {
  code?: number;
  message?: string;
  more_info?: string;
  status?: number;
}

const DEFAULT_BASE_URL = 'https://api.twilio.com';
const DEFAULT_TIMEOUT_MS = 15_000;

const QUEUED_STATUSES = new Set(['accepted', 'scheduled', 'queued', 'sending']);
const SENT_STATUSES = new Set(['sent', 'delivered', 'read', 'receiving', 'received']);
const FAILED_STATUSES = new Set(['failed', 'undelivered', 'canceled']);

export function createTwilioMessaging(options: TwilioMessagingOptions): Messaging {
  if (!options.accountSid) throw new Error('Twilio messaging needs an accountSid');
  if (!options.authToken) throw new Error('Twilio messaging needs an authToken');
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const endpoint = `${baseUrl}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = options.fetch ?? globalThis.fetch;

  return {
    name: 'twilio',

    async send(message, sendOptions = {}): Promise<SentMessage> {
      checkOutbound(message);
      const callerSignal = sendOptions.signal;
      if (callerSignal?.aborted) throw abortedError(callerSignal.reason);

      const address = (number: string) => (message.channel === 'whatsapp' ? `whatsapp:${number}` : number);
      const form = new URLSearchParams();
      form.set('To', address(message.to));
      form.set('From', address(message.from));
      if (message.template) {
        form.set('ContentSid', message.template.contentSid);
        if (message.template.variables && Object.keys(message.template.variables).length > 0) {
          form.set('ContentVariables', JSON.stringify(message.template.variables));
        }
      } else {
        form.set('Body', message.body ?? '');
      }

      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
      let status: number;
      let text: string;
      try {
        const response = await doFetch(endpoint, {
          method: 'POST',
          headers: {
            Authorization: authorization,
            'Content-Type': 'application/x-www-form-urlencoded',
            Accept: 'application/json',
          },
          body: form.toString(),
          signal,
        });
        status = response.status;
        text = await response.text();
      } catch (err) {
        if (callerSignal?.aborted) throw abortedError(err);
        if (timeout.aborted) {
          throw new MessagingError(
            `Twilio did not answer within ${timeoutMs} ms`,
            'messaging_timeout',
            504,
            true,
            err,
          );
        }
        throw new MessagingError(
          `could not reach Twilio: ${err instanceof Error ? err.message : String(err)}`,
          'messaging_unavailable',
          502,
          true,
          err,
        );
      }

      if (status < 200 || status >= 300) throw errorFor(status, text);
      return sentMessageFrom(text);
    },
  };
}

function abortedError(cause: unknown): MessagingError {
  return new MessagingError('sending was aborted', 'messaging_aborted', 503, false, cause);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorFor(status: number, text: string): MessagingError {
  const parsed = parseJson(text);
  const body: TwilioErrorBody = isRecord(parsed)
    ? {
        ...(typeof parsed.code === 'number' && { code: parsed.code }),
        ...(typeof parsed.message === 'string' && { message: parsed.message }),
        ...(typeof parsed.more_info === 'string' && { more_info: parsed.more_info }),
        ...(typeof parsed.status === 'number' && { status: parsed.status }),
      }
    : {};
  const description = body.message ?? `Twilio answered HTTP ${status}`;
  if (status === 429) return new MessagingError(description, 'messaging_rate_limited', 503, true, body);
  if (status >= 500) return new MessagingError(description, 'messaging_unavailable', 502, true, body);
  return new MessagingError(description, 'messaging_rejected', status === 400 ? 400 : 502, false, body);
}

function sentMessageFrom(text: string): SentMessage {
  const parsed = parseJson(text);
  if (!isRecord(parsed) || typeof parsed.sid !== 'string' || parsed.sid === '') {
    throw new MessagingError(
      'Twilio answered without a message sid',
      'messaging_bad_response',
      502,
      false,
      text,
    );
  }
  const status = typeof parsed.status === 'string' ? parsed.status : 'queued';
  if (FAILED_STATUSES.has(status)) {
    const reason = typeof parsed.error_message === 'string' ? `: ${parsed.error_message}` : '';
    throw new MessagingError(
      `Twilio reports message ${parsed.sid} ${status}${reason}`,
      'undeliverable',
      502,
      false,
      parsed,
    );
  }
  if (SENT_STATUSES.has(status)) return { id: parsed.sid, status: 'sent' };
  if (QUEUED_STATUSES.has(status)) return { id: parsed.sid, status: 'queued' };
  // A status this adapter does not know yet: the message was accepted, so it counts as queued.
  return { id: parsed.sid, status: 'queued' };
}

// ---------------------------------------------------------------------------------------------
// Inbound webhook

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

export function createTwilioInboundParser(options: { authToken: string }): InboundParser {
  if (!options.authToken) throw new Error('the Twilio inbound parser needs an authToken');
  const { authToken } = options;

  return {
    parse(request): InboundMessage {
      const signature = header(request.headers, 'x-twilio-signature');
      if (signature === undefined || signature === '') {
        throw new MessagingError('missing X-Twilio-Signature header', 'invalid_signature', 401, false);
      }
      const valid = verifyTwilioSignature(authToken, request.url, request.form, signature);
      if (!valid) throw new MessagingError('invalid X-Twilio-Signature', 'invalid_signature', 401, false);

      const { From: rawFrom, To: rawTo, Body: body } = request.form;
      const providerMessageId = request.form.MessageSid ?? request.form.SmsMessageSid ?? request.form.SmsSid;
      if (!rawFrom || !rawTo) throw invalidMessage('the inbound message has no From or To');
      if (!providerMessageId) throw invalidMessage('the inbound message has no MessageSid');
      const whatsapp = rawFrom.startsWith('whatsapp:') || rawTo.startsWith('whatsapp:');
      const strip = (value: string) =>
        value.startsWith('whatsapp:') ? value.slice('whatsapp:'.length) : value;
      return {
        channel: whatsapp ? 'whatsapp' : 'sms',
        from: strip(rawFrom),
        to: strip(rawTo),
        body: body ?? '',
        providerMessageId,
      };
    },
  };
}
