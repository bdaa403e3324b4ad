import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  signedInboundWebhook,
  signTwilioWebhook,
  startFakeTwilio,
  twilioError,
  twilioInboundForm,
  type FakeTwilio,
} from '../../../test/twilio-server/index.ts';
import { runMessagingContract } from '../testing/messaging-contract.ts';
import { twilioSignature } from '../../core/index.ts';
import { createTwilioInboundParser, createTwilioMessaging } from './twilio.ts';
import { MessagingError, type Messaging } from './types.ts';

runMessagingContract('twilio', async () => {
  const fake = await startFakeTwilio();
  const messaging = createTwilioMessaging({
    accountSid: fake.accountSid,
    authToken: fake.authToken,
    baseUrl: fake.url,
  });
  return { messaging, deliveries: () => fake.requests.length, close: () => fake.close() };
});

const AGENT = '+14155550100';
const USER = '+14155550123';

async function failure(promise: Promise<unknown>): Promise<MessagingError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(MessagingError);
  return error as MessagingError;
}

describe('Twilio messaging against the fake Messages API', () => {
  let fake: FakeTwilio;
  let twilio: Messaging;
  beforeEach(async () => {
    fake = await startFakeTwilio();
    twilio = createTwilioMessaging({
      accountSid: fake.accountSid,
      authToken: fake.authToken,
      baseUrl: fake.url,
    });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('posts an SMS as Twilio expects it', async () => {
    const sent = await twilio.send({
      channel: 'sms',
      from: AGENT,
      to: USER,
      body: 'Table for 2 at 7pm & 8pm?',
    });

    expect(sent).toEqual({ id: expect.stringMatching(/^SM[0-9a-f]{32}$/), status: 'queued' });
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0];
    expect(request).toMatchObject({
      method: 'POST',
      url: `/2010-04-01/Accounts/${fake.accountSid}/Messages.json`,
      auth: { username: fake.accountSid, password: fake.authToken },
      form: { To: USER, From: AGENT, Body: 'Table for 2 at 7pm & 8pm?' },
    });
    expect(Object.keys(request?.form ?? {}).sort()).toEqual(['Body', 'From', 'To']);
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`,
    );
    expect(request?.rawBody).toBe('To=%2B14155550123&From=%2B14155550100&Body=Table+for+2+at+7pm+%26+8pm%3F');
  });

  it('addresses WhatsApp messages as whatsapp:+E164', async () => {
    await twilio.send({ channel: 'whatsapp', from: AGENT, to: USER, body: '¿Mañana? 👋' });
    expect(fake.requests[0]?.form).toEqual({
      To: `whatsapp:${USER}`,
      From: `whatsapp:${AGENT}`,
      Body: '¿Mañana? 👋',
    });
  });

  it('sends a template as ContentSid and ContentVariables (a JSON string), without Body', async () => {
    await twilio.send({
      channel: 'whatsapp',
      from: AGENT,
      to: USER,
      body: 'shown in the transcript only',
      template: { contentSid: 'HX0123456789abcdef0123456789abcdef', variables: { '1': 'Ada', '2': '7pm' } },
    });
    const form = fake.requests[0]?.form;
    expect(form).toEqual({
      To: `whatsapp:${USER}`,
      From: `whatsapp:${AGENT}`,
      ContentSid: 'HX0123456789abcdef0123456789abcdef',
      ContentVariables: '{"1":"Ada","2":"7pm"}',
    });
    expect(JSON.parse(form?.ContentVariables ?? '')).toEqual({ '1': 'Ada', '2': '7pm' });
  });

  it('leaves ContentVariables out when the template has none', async () => {
    await twilio.send({ channel: 'sms', from: AGENT, to: USER, template: { contentSid: 'HXabc' } });
    expect(fake.requests[0]?.form).toEqual({ To: USER, From: AGENT, ContentSid: 'HXabc' });
  });

  it('tolerates a trailing slash on the base URL', async () => {
    const slashed = createTwilioMessaging({
      accountSid: fake.accountSid,
      authToken: fake.authToken,
      baseUrl: `${fake.url}/`,
    });
    await slashed.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' });
    expect(fake.requests[0]?.url).toBe(`/2010-04-01/Accounts/${fake.accountSid}/Messages.json`);
  });

  it('maps the status Twilio answers with', async () => {
    const answer = (status: string) =>
      fake.respondNext({ status: 201, body: { sid: `SM${'1'.repeat(32)}`, status, error_message: null } });
    const send = () => twilio.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' });

    for (const status of ['accepted', 'scheduled', 'queued', 'sending', 'something-new']) {
      answer(status);
      expect(await send()).toEqual({ id: `SM${'1'.repeat(32)}`, status: 'queued' });
    }
    for (const status of ['sent', 'delivered']) {
      answer(status);
      expect(await send()).toEqual({ id: `SM${'1'.repeat(32)}`, status: 'sent' });
    }
    fake.respondNext({
      status: 201,
      body: {
        sid: `SM${'2'.repeat(32)}`,
        status: 'failed',
        error_message: 'Unreachable destination handset',
      },
    });
    const error = await failure(send());
    expect(error).toMatchObject({ code: 'undeliverable', status: 502, retryable: false });
    expect(error.message).toContain('Unreachable destination handset');
  });

  it("maps a 400 to a MessagingError with Twilio's message, not retryable", async () => {
    const body = twilioError(400, 21211, "The 'To' number +14155550199 is not a valid phone number.");
    fake.respondNext({ status: 400, body });
    const error = await failure(twilio.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' }));
    expect(error).toMatchObject({
      code: 'messaging_rejected',
      status: 400,
      retryable: false,
      message: "The 'To' number +14155550199 is not a valid phone number.",
    });
    expect(error.cause).toEqual(body);
  });

  it('maps wrong credentials (401/20003) to a non-retryable configuration failure', async () => {
    const wrong = createTwilioMessaging({
      accountSid: fake.accountSid,
      authToken: 'nope',
      baseUrl: fake.url,
    });
    const error = await failure(wrong.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' }));
    expect(error).toMatchObject({
      code: 'messaging_rejected',
      status: 502,
      retryable: false,
      message: 'Authenticate',
    });
    expect(error.cause).toMatchObject({ code: 20003, status: 401 });

    const unknown = createTwilioMessaging({
      accountSid: `AC${'f'.repeat(32)}`,
      authToken: 'x',
      baseUrl: fake.url,
    });
    expect(await failure(unknown.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' }))).toMatchObject({
      cause: { code: 20003 },
    });
  });

  it('maps 429 and 5xx to retryable failures', async () => {
    const send = () => twilio.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' });
    fake.respondNext({ status: 429, body: twilioError(429, 20429, 'Too Many Requests') });
    expect(await failure(send())).toMatchObject({
      code: 'messaging_rate_limited',
      retryable: true,
      message: 'Too Many Requests',
    });
    fake.respondNext({ status: 503, body: '<html>Service Unavailable</html>' });
    expect(await failure(send())).toMatchObject({
      code: 'messaging_unavailable',
      status: 502,
      retryable: true,
      message: 'Twilio answered HTTP 503',
    });
    fake.respondNext({ status: 500, body: twilioError(500, 20500, 'Internal Server Error') });
    expect(await failure(send())).toMatchObject({ code: 'messaging_unavailable', retryable: true });
  });

  it('treats a 2xx without a sid as a bad response, not retryable', async () => {
    fake.respondNext({ status: 201, body: 'not json' });
    expect(await failure(twilio.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' }))).toMatchObject({
      code: 'messaging_bad_response',
      retryable: false,
    });
  });

  it('gives up after timeoutMs with a retryable timeout', async () => {
    const quick = createTwilioMessaging({
      accountSid: fake.accountSid,
      authToken: fake.authToken,
      baseUrl: fake.url,
      timeoutMs: 50,
    });
    fake.respondNext({ hang: true });
    const error = await failure(quick.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' }));
    expect(error).toMatchObject({ code: 'messaging_timeout', status: 504, retryable: true });
    expect(fake.requests).toHaveLength(1);
  });

  it("stops when the caller's signal aborts, and does not call when it already has", async () => {
    const controller = new AbortController();
    fake.respondNext({ hang: true });
    const pending = twilio.send(
      { channel: 'sms', from: AGENT, to: USER, body: 'hi' },
      { signal: controller.signal },
    );
    // Abort once the fake holds the request.
    await new Promise<void>((resolve) => {
      const check = () => (fake.requests.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    controller.abort();
    expect(await failure(pending)).toMatchObject({ code: 'messaging_aborted', retryable: false });

    expect(
      await failure(
        twilio.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' }, { signal: AbortSignal.abort() }),
      ),
    ).toMatchObject({ code: 'messaging_aborted' });
    expect(fake.requests).toHaveLength(1);
  });

  it('maps a network failure to a retryable failure', async () => {
    const closed = await startFakeTwilio();
    const baseUrl = closed.url;
    await closed.close();
    const unreachable = createTwilioMessaging({ accountSid: fake.accountSid, authToken: 'x', baseUrl });
    expect(
      await failure(unreachable.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' })),
    ).toMatchObject({ code: 'messaging_unavailable', status: 502, retryable: true });
  });

  it('uses the fetch it is given', async () => {
    const calls: { url: string; init: RequestInit | undefined }[] = [];
    const fetchStub: typeof fetch = async (input, init) => {
      calls.push({ url: String(input), init });
      return new Response(JSON.stringify({ sid: `SM${'a'.repeat(32)}`, status: 'queued' }), { status: 201 });
    };
    const stubbed = createTwilioMessaging({ accountSid: 'ACx', authToken: 'tok', fetch: fetchStub });
    expect(await stubbed.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' })).toEqual({
      id: `SM${'a'.repeat(32)}`,
      status: 'queued',
    });
    expect(calls[0]?.url).toBe('https://api.twilio.com/2010-04-01/Accounts/ACx/Messages.json');
    expect(calls[0]?.init?.method).toBe('POST');
  });
});

describe('the fake Messages API answers like Twilio', () => {
  let fake: FakeTwilio;
  beforeEach(async () => {
    fake = await startFakeTwilio();
  });
  afterEach(async () => {
    await fake.close();
  });

  const post = (form: Record<string, string>, auth = `${fake.accountSid}:${fake.authToken}`) =>
    fetch(`${fake.url}/2010-04-01/Accounts/${fake.accountSid}/Messages.json`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(auth).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
    });

  it('requires To and From, and the right credentials', async () => {
    const noTo = await post({ From: AGENT, Body: 'x' });
    expect(noTo.status).toBe(400);
    expect(await noTo.json()).toEqual({
      code: 21604,
      message: "A 'To' phone number is required.",
      more_info: 'https://www.twilio.com/docs/errors/21604',
      status: 400,
    });
    const noFrom = await post({ To: USER, Body: 'x' });
    expect(await noFrom.json()).toMatchObject({ code: 21603, status: 400 });
    const badAuth = await post({ To: USER, From: AGENT, Body: 'x' }, `${fake.accountSid}:wrong`);
    expect(badAuth.status).toBe(401);
    expect(await badAuth.json()).toMatchObject({ code: 20003, status: 401 });
  });

  it("answers 201 with Twilio's message JSON", async () => {
    const response = await post({ To: USER, From: AGENT, Body: 'hello' });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      account_sid: fake.accountSid,
      sid: expect.stringMatching(/^SM[0-9a-f]{32}$/),
      status: 'queued',
      to: USER,
      from: AGENT,
      body: 'hello',
      direction: 'outbound-api',
    });
  });
});

describe('Twilio inbound webhook', () => {
  const authToken = 'inbound-test-token';
  const parser = createTwilioInboundParser({ authToken });

  it("matches the worked example in Twilio's security documentation", () => {
    // https://www.twilio.com/docs/usage/security#validating-requests
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const params = {
      CallSid: 'CA1234567890ABCDE',
      Caller: '+14158675310',
      Digits: '1234',
      From: '+14158675310',
      To: '+18005551212',
    };
    expect(twilioSignature('12345', url, params)).toBe('GvWf1cFY/Q7PnoempGyD5oXAezc=');
    // The parser accepts the signature; the example is a voice callback, so it has no MessageSid.
    const error = (() => {
      try {
        createTwilioInboundParser({ authToken: '12345' }).parse({
          url,
          headers: { 'X-Twilio-Signature': 'GvWf1cFY/Q7PnoempGyD5oXAezc=' },
          form: params,
        });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'invalid_message', status: 400 });
  });

  it('agrees with the independently computed signature of the fake', () => {
    const form = twilioInboundForm({ from: USER, to: AGENT, body: 'Zoë says: a=b&c' });
    const url = 'https://parley.example.com/hooks/sms?workspace=w1';
    expect(twilioSignature(authToken, url, form)).toBe(signTwilioWebhook(authToken, url, form));
  });

  it('parses a signed SMS', () => {
    const request = signedInboundWebhook({
      authToken,
      from: USER,
      to: AGENT,
      body: 'Yes, 7pm works',
      messageSid: `SM${'b'.repeat(32)}`,
    });
    expect(parser.parse(request)).toEqual({
      channel: 'sms',
      from: USER,
      to: AGENT,
      body: 'Yes, 7pm works',
      providerMessageId: `SM${'b'.repeat(32)}`,
    });
  });

  it('parses a signed WhatsApp message, stripping the whatsapp: prefix', () => {
    const request = signedInboundWebhook({
      authToken,
      channel: 'whatsapp',
      from: USER,
      to: AGENT,
      body: 'Sí 👍',
    });
    expect(request.form.From).toBe(`whatsapp:${USER}`);
    expect(parser.parse(request)).toEqual({
      channel: 'whatsapp',
      from: USER,
      to: AGENT,
      body: 'Sí 👍',
      providerMessageId: request.form.MessageSid,
    });
  });

  it('finds the signature header whatever its case', () => {
    const request = signedInboundWebhook({ authToken, from: USER, to: AGENT, body: 'hi' });
    const signature = request.headers['x-twilio-signature'];
    expect(parser.parse({ ...request, headers: { 'X-Twilio-Signature': signature } }).body).toBe('hi');
  });

  it('rejects a tampered body with 401', () => {
    const request = signedInboundWebhook({ authToken, from: USER, to: AGENT, body: 'Cancel my booking' });
    const tampered = { ...request, form: { ...request.form, Body: 'Keep my booking' } };
    expect(() => parser.parse(tampered)).toThrow(MessagingError);
    expect(() => parser.parse(tampered)).toThrow(
      expect.objectContaining({ status: 401, code: 'invalid_signature' }),
    );
    const extra = { ...request, form: { ...request.form, Injected: '1' } };
    expect(() => parser.parse(extra)).toThrow(expect.objectContaining({ status: 401 }));
  });

  it('rejects a signature made for another URL or with another token', () => {
    const request = signedInboundWebhook({
      authToken,
      url: 'https://parley.example.com/hooks/a',
      from: USER,
      to: AGENT,
      body: 'hi',
    });
    expect(() => parser.parse({ ...request, url: 'https://parley.example.com/hooks/b' })).toThrow(
      expect.objectContaining({ status: 401 }),
    );
    expect(() => parser.parse({ ...request, url: 'https://parley.example.com/hooks/a?x=1' })).toThrow(
      expect.objectContaining({ status: 401 }),
    );
    const otherToken = signedInboundWebhook({ authToken: 'other', from: USER, to: AGENT, body: 'hi' });
    expect(() => parser.parse(otherToken)).toThrow(expect.objectContaining({ status: 401 }));
  });

  it('rejects a missing or empty signature header with 401', () => {
    const request = signedInboundWebhook({ authToken, from: USER, to: AGENT, body: 'hi' });
    const { 'x-twilio-signature': _dropped, ...headers } = request.headers;
    expect(() => parser.parse({ ...request, headers })).toThrow(
      expect.objectContaining({
        status: 401,
        code: 'invalid_signature',
        message: 'missing X-Twilio-Signature header',
      }),
    );
    expect(() => parser.parse({ ...request, headers: { ...headers, 'x-twilio-signature': '' } })).toThrow(
      expect.objectContaining({ status: 401 }),
    );
    expect(() =>
      parser.parse({
        ...request,
        headers: { ...headers, 'x-twilio-signature': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
      }),
    ).toThrow(expect.objectContaining({ status: 401 }));
  });

  it('accepts the URL with or without the default port, as Twilio libraries do', () => {
    const signedWithout = signedInboundWebhook({
      authToken,
      url: 'https://parley.example.com/hook',
      from: USER,
      to: AGENT,
      body: 'a',
    });
    expect(parser.parse({ ...signedWithout, url: 'https://parley.example.com:443/hook' }).body).toBe('a');
    const signedWith = signedInboundWebhook({
      authToken,
      url: 'https://parley.example.com:443/hook',
      from: USER,
      to: AGENT,
      body: 'b',
    });
    expect(parser.parse({ ...signedWith, url: 'https://parley.example.com/hook' }).body).toBe('b');
    const otherPort = signedInboundWebhook({
      authToken,
      url: 'https://parley.example.com:8443/hook',
      from: USER,
      to: AGENT,
      body: 'c',
    });
    expect(() => parser.parse({ ...otherPort, url: 'https://parley.example.com/hook' })).toThrow(
      expect.objectContaining({ status: 401 }),
    );
  });

  it('refuses a correctly signed webhook that lacks From, To or MessageSid (400)', () => {
    const url = 'https://parley.example.com/hook';
    const form = { Body: 'hi', To: AGENT };
    const request = { url, headers: { 'x-twilio-signature': signTwilioWebhook(authToken, url, form) }, form };
    expect(() => parser.parse(request)).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_message' }),
    );
  });

  it('treats a media-only message (no Body) as an empty body', () => {
    const url = 'https://parley.example.com/hook';
    const form = { From: USER, To: AGENT, MessageSid: `MM${'c'.repeat(32)}`, NumMedia: '1' };
    const request = { url, headers: { 'x-twilio-signature': signTwilioWebhook(authToken, url, form) }, form };
    expect(parser.parse(request)).toMatchObject({ body: '', providerMessageId: `MM${'c'.repeat(32)}` });
  });
});
