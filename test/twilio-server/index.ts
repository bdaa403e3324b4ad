import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeVoice, type FakeVoice, type FakeVoiceOptions } from './voice.ts';

export {
  MACHINE_GREETING,
  parseConnectStream,
  type FakeCall,
  type FakeVoice,
  type StreamMessage,
} from './voice.ts';

// A local fake of Twilio's Messages API (POST /2010-04-01/Accounts/{AccountSid}/Messages.json) on
// 127.0.0.1, for tests of the Twilio adapter. It checks what Twilio checks, answers with Twilio's
// shapes (201 + message JSON, or {code, message, more_info, status}) and records every request.
// It also builds signed inbound-message webhooks; the signature is computed here on its own,
// not with the adapter's code.

export interface FakeTwilioRequest {
  method: string;
  /** Path and query, as requested. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The Basic credentials, when the Authorization header carried any. */
  auth?: { username: string; password: string };
  rawBody: string;
  /** The form-encoded parameters (empty unless the body was application/x-www-form-urlencoded). */
  form: Record<string, string>;
}

/** What the next request gets instead of normal handling. */
export type FakeTwilioOverride =
  | { status: number; body?: unknown }
  /** Accept the request and never answer (until the server closes). */
  | { hang: true };

export interface FakeTwilio {
  /** e.g. http://127.0.0.1:54321, to pass as the adapter's baseUrl. */
  readonly url: string;
  readonly accountSid: string;
  readonly authToken: string;
  readonly requests: FakeTwilioRequest[];
  /** Overrides the answer to the next request only (queued: call again for the one after). */
  respondNext(override: FakeTwilioOverride): void;
  /** The Voice side: calls placed and received, their streams (voice.ts). */
  readonly voice: FakeVoice;
  /** Signs a request to Parley as this account (the fake's own code). */
  sign(url: string, form: Record<string, string>): string;
  close(): Promise<void>;
}

export const FAKE_ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
export const FAKE_AUTH_TOKEN = 'fake-auth-token-0123456789abcdef';

export function twilioError(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

const E164 = /^\+[1-9]\d{1,14}$/;

function rfc2822(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBasic(header: string | undefined): { username: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export async function startFakeTwilio(
  options: {
    accountSid?: string;
    authToken?: string;
    voice?: Omit<FakeVoiceOptions, 'accountSid' | 'sign'>;
  } = {},
): Promise<FakeTwilio> {
  const accountSid = options.accountSid ?? FAKE_ACCOUNT_SID;
  const authToken = options.authToken ?? FAKE_AUTH_TOKEN;
  const sign = (url: string, form: Record<string, string>) => signTwilioWebhook(authToken, url, form);
  const voice = createFakeVoice({ ...options.voice, accountSid, sign });
  const requests: FakeTwilioRequest[] = [];
  const overrides: FakeTwilioOverride[] = [];

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const rawBody = await readBody(req);
    const contentType = String(req.headers['content-type'] ?? '');
    const form: Record<string, string> = {};
    if (contentType.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
      for (const [name, value] of new URLSearchParams(rawBody)) form[name] = value;
    }
    const auth = parseBasic(req.headers.authorization);
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: { ...req.headers },
      ...(auth && { auth }),
      rawBody,
      form,
    });

    const override = overrides.shift();
    if (override) {
      if ('hang' in override) return;
      send(res, override.status, override.body ?? twilioError(override.status, 0, `HTTP ${override.status}`));
      return;
    }

    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const calls = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/.exec(path);
    if (calls) {
      if (!auth || auth.username !== accountSid || auth.password !== authToken)
        return send(res, 401, twilioError(401, 20003, 'Authenticate'));
      if (decodeURIComponent(calls[1] ?? '') !== accountSid || req.method !== 'POST')
        return send(res, 404, twilioError(404, 20404, `The requested resource ${path} was not found`));
      const answer = calls[2]
        ? voice.update(calls[2], form)
        : voice.create(form, new URLSearchParams(rawBody));
      return send(res, answer.status, answer.body);
    }
    const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(path);
    if (!match) {
      send(res, 404, twilioError(404, 20404, `The requested resource ${path} was not found`));
      return;
    }
    if (!auth || auth.username !== accountSid || auth.password !== authToken) {
      send(res, 401, twilioError(401, 20003, 'Authenticate'));
      return;
    }
    if (decodeURIComponent(match[1] ?? '') !== accountSid) {
      send(res, 404, twilioError(404, 20404, `The requested resource ${path} was not found`));
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, twilioError(405, 20004, 'Method not allowed'));
      return;
    }

    const { To: to, From: from, Body: body, ContentSid: contentSid, ContentVariables: variables } = form;
    if (!to) return send(res, 400, twilioError(400, 21604, "A 'To' phone number is required."));
    if (!from) return send(res, 400, twilioError(400, 21603, "A 'From' phone number is required."));
    const strip = (address: string) => address.replace(/^whatsapp:/, '');
    if (!E164.test(strip(to))) {
      return send(res, 400, twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`));
    }
    if (!E164.test(strip(from))) {
      return send(
        res,
        400,
        twilioError(
          400,
          21212,
          `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`,
        ),
      );
    }
    if (to.startsWith('whatsapp:') !== from.startsWith('whatsapp:')) {
      return send(
        res,
        400,
        twilioError(400, 21910, 'Invalid From and To pair. From and To should be of the same channel'),
      );
    }
    if (!body && !contentSid) {
      return send(res, 400, twilioError(400, 21602, 'Message body is required.'));
    }
    if (variables !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(variables);
      } catch {
        parsed = undefined;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return send(res, 400, twilioError(400, 21656, 'The ContentVariables Parameter is invalid.'));
      }
    }

    const sid = `SM${randomBytes(16).toString('hex')}`;
    const now = rfc2822(new Date());
    const uri = `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`;
    send(res, 201, {
      account_sid: accountSid,
      api_version: '2010-04-01',
      body: body ?? '',
      date_created: now,
      date_sent: null,
      date_updated: now,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from,
      messaging_service_sid: null,
      num_media: '0',
      num_segments: '1',
      price: null,
      price_unit: 'USD',
      sid,
      status: 'queued',
      subresource_uris: { media: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}/Media.json` },
      to,
      uri,
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, twilioError(500, 20500, `fake Twilio failed: ${String(err)}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    requests,
    respondNext: (override) => {
      overrides.push(override);
    },
    voice,
    sign,
    close: () =>
      new Promise<void>((resolve, reject) => {
        voice.close();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Inbound webhooks

/** X-Twilio-Signature, computed as Twilio's security documentation describes it. */
export function signTwilioWebhook(authToken: string, url: string, form: Record<string, string>): string {
  const pieces = [url];
  for (const name of Object.keys(form).sort()) pieces.push(`${name}${form[name]}`);
  return createHmac('sha1', Buffer.from(authToken, 'utf8')).update(pieces.join('')).digest('base64');
}

export interface InboundWebhookInput {
  authToken?: string;
  accountSid?: string;
  url?: string;
  channel?: 'sms' | 'whatsapp';
  from: string;
  to: string;
  body: string;
  messageSid?: string;
}

/** The fields Twilio posts for an incoming message (a representative set, as in a real webhook). */
export function twilioInboundForm(input: InboundWebhookInput): Record<string, string> {
  const sid = input.messageSid ?? `SM${randomBytes(16).toString('hex')}`;
  const prefix = input.channel === 'whatsapp' ? 'whatsapp:' : '';
  const form: Record<string, string> = {
    ToCountry: 'US',
    ToState: 'CA',
    SmsMessageSid: sid,
    NumMedia: '0',
    ToCity: 'SAN FRANCISCO',
    FromZip: '94105',
    SmsSid: sid,
    FromState: 'CA',
    SmsStatus: 'received',
    FromCity: 'SAN FRANCISCO',
    Body: input.body,
    FromCountry: 'US',
    To: `${prefix}${input.to}`,
    ToZip: '94105',
    NumSegments: '1',
    MessageSid: sid,
    AccountSid: input.accountSid ?? FAKE_ACCOUNT_SID,
    From: `${prefix}${input.from}`,
    ApiVersion: '2010-04-01',
  };
  if (input.channel === 'whatsapp') {
    form.ProfileName = 'Test User';
    form.WaId = input.from.replace(/^\+/, '');
    form.MessageType = 'text';
  }
  return form;
}

/** A signed inbound-message webhook, shaped as Parley's HTTP layer hands it to an InboundParser. */
export function signedInboundWebhook(input: InboundWebhookInput): {
  url: string;
  headers: Record<string, string>;
  form: Record<string, string>;
} {
  const url = input.url ?? 'https://parley.example.com/webhooks/twilio/messages';
  const form = twilioInboundForm(input);
  return {
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signTwilioWebhook(input.authToken ?? FAKE_AUTH_TOKEN, url, form),
      'i-twilio-idempotency-token': randomBytes(16).toString('hex'),
    },
    form,
  };
}
