import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, createSafeFetch } from '../core/index.ts';
import type { HttpPort, ManualClock } from '../core/index.ts';
import { interpretInboundAnswer, normalizeCustomVariables, routeInboundCall } from './index.ts';
import type { InboundAttemptLog, InboundCallRequest, InboundDecision, InboundWebhookDeps } from './index.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OLD_SECRET = 'whsec_' + Buffer.from('an older secret of 24 b!').toString('base64');

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  verified: boolean;
  verifiedOld: boolean;
  /** The manual clock's offset from the start when the request arrived. */
  at: number;
}

const json =
  (value: unknown, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
const raw =
  (text: string, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };
/** Answers only after the client has given up. */
const slow =
  (ms: number, then: Handler): Handler =>
  (req, res, body) => {
    setTimeout(() => {
      if (!res.destroyed) then(req, res, body);
    }, ms);
  };
const hangUp: Handler = (req) => req.socket.destroy();

let server: http.Server;
let url: string;
let script: Handler[];
let received: Received[];
let clock: ManualClock;
let start: number;

beforeEach(async () => {
  script = [];
  received = [];
  clock = createManualClock(Date.now()); // real-ish time: the receiver checks timestamp tolerance
  start = clock.now();
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = req.headers as Record<string, string>;
      const check = (secret: string) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      };
      received.push({
        headers: req.headers,
        body,
        verified: check(SECRET),
        verifiedOld: check(OLD_SECRET),
        at: clock.now() - start,
      });
      const handler = script[received.length - 1] ?? json({}, 500);
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/inbound`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const safeFetch = createSafeFetch({ allowPrivateNetwork: true, timeoutMs: 5000 });

function request(extra: Partial<InboundCallRequest> = {}): InboundCallRequest {
  return {
    url,
    secret: SECRET,
    callId: 'call-1',
    fromNumber: '+15550100001',
    toNumber: '+15550100002',
    modelId: 'agent-default',
    ...extra,
  };
}

interface Run {
  decision: InboundDecision;
  logs: InboundAttemptLog[];
  holds: number;
}

/** Budget 4000 ms over 4 attempts: slots of 1000 ms on the manual clock; 100 ms real timeout. */
async function run(
  extra: Partial<InboundCallRequest> = {},
  deps: Partial<InboundWebhookDeps> = {},
): Promise<Run> {
  const logs: InboundAttemptLog[] = [];
  let holds = 0;
  let done = false;
  const promise = routeInboundCall(request(extra), {
    http: safeFetch,
    clock,
    timeoutMs: 100,
    budgetMs: 4000,
    onAttempt: (log) => logs.push(log),
    onHold: () => holds++,
    ...deps,
  }).finally(() => {
    done = true;
  });
  // Moves the manual clock only while the code waits for its next slot; 50 divides the slots.
  while (!done) {
    if (clock.pendingSleeps > 0) await clock.tick(50);
    else await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { decision: await promise, logs, holds };
}

describe('routeInboundCall against a real receiver', () => {
  it('sends a signed call_inbound event that the receiver verifies', async () => {
    script = [json({ call_inbound: { override_model_id: '' } })];
    const { decision, logs } = await run();
    expect(decision).toEqual({
      action: 'connect',
      modelId: null,
      customVariables: {},
      metadata: {},
      attempts: 1,
    });
    expect(received).toHaveLength(1);
    const first = received[0]!;
    expect(first.verified).toBe(true);
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(first.headers['webhook-timestamp']).toBe(String(Math.floor(start / 1000)));
    expect(JSON.parse(first.body)).toEqual({
      event: 'call_inbound',
      call_inbound: { model_id: 'agent-default', from_number: '+15550100001', to_number: '+15550100002' },
    });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      call_id: 'call-1',
      attempt_number: 1,
      status: 'success',
      error: null,
      response_status_code: 200,
      request_body: first.body,
    });
    expect(logs[0]!.request_headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(logs[0]!.response_body).toContain('call_inbound');
    expect(logs[0]!.response_headers?.['content-type']).toBe('application/json');
  });

  it('leaves model_id out when the number has no agent', async () => {
    script = [json({ call_inbound: { override_model_id: '' } })];
    await run({ modelId: undefined });
    expect(JSON.parse(received[0]!.body)).toEqual({
      event: 'call_inbound',
      call_inbound: { from_number: '+15550100001', to_number: '+15550100002' },
    });
  });

  it('signs with both secrets during a rotation', async () => {
    script = [json({ call_inbound: { override_model_id: '' } })];
    await run({ previousSecret: OLD_SECRET });
    const first = received[0]!;
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(first.verified).toBe(true);
    expect(first.verifiedOld).toBe(true);
  });

  it('rule 1: an empty call_inbound object disconnects', async () => {
    script = [json({ call_inbound: {} })];
    const { decision, holds } = await run();
    expect(decision).toEqual({ action: 'disconnect', reason: 'empty_answer', attempts: 1 });
    expect(holds).toBe(0);
  });

  it('rule 2: another agent id reroutes, with variables and metadata', async () => {
    script = [
      json({
        call_inbound: {
          override_model_id: 'agent-vip',
          custom_variables: {
            name: 'Ada',
            tier: 3,
            vip: true,
            nothing: null,
            tags: ['a', 'b'],
            nested: { x: 1 },
          },
          metadata: { crm_id: 'c-42', score: { a: 1 } },
        },
      }),
    ];
    const { decision } = await run();
    expect(decision).toEqual({
      action: 'connect',
      modelId: 'agent-vip',
      customVariables: { name: 'Ada', tier: 3, vip: true, tags: '["a","b"]', nested: '{"x":1}' },
      metadata: { crm_id: 'c-42', score: { a: 1 } },
      attempts: 1,
    });
  });

  it('rule 2: variables without an override keep the receiving agent', async () => {
    script = [json({ call_inbound: { custom_variables: { a: 'b' } } })];
    const { decision } = await run();
    expect(decision).toMatchObject({ action: 'connect', modelId: null, customVariables: { a: 'b' } });
  });

  it('rule 3: a slow receiver is retried after going on hold', async () => {
    script = [
      slow(400, json({ call_inbound: { override_model_id: 'late' } })),
      json({ call_inbound: { override_model_id: 'b' } }),
    ];
    const { decision, logs, holds } = await run();
    expect(decision).toMatchObject({ action: 'connect', modelId: 'b', attempts: 2 });
    expect(holds).toBe(1);
    expect(logs.map((l) => l.status)).toEqual(['failed', 'success']);
    expect(logs[0]).toMatchObject({ attempt_number: 1, response_status_code: null, response_body: null });
    expect(logs[0]!.error).toMatch(/^timeout/);
    expect(logs[1]!.attempt_number).toBe(2);
  });

  it('rule 3: a 500 then a success; same webhook-id, fresh signature, next slot', async () => {
    script = [json({ error: 'boom' }, 500), json({ call_inbound: { override_model_id: '' } })];
    const { decision, logs, holds } = await run();
    expect(decision).toMatchObject({ action: 'connect', modelId: null, attempts: 2 });
    expect(holds).toBe(1);
    expect(logs[0]).toMatchObject({
      status: 'failed',
      response_status_code: 500,
      response_body: '{"error":"boom"}',
    });
    expect(logs[0]!.error).toContain('500');
    expect(received.map((r) => r.verified)).toEqual([true, true]);
    expect(received[1]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
    expect(received.map((r) => r.at)).toEqual([0, 1000]);
  });

  it('rule 3: garbage JSON and a body without call_inbound count as failures', async () => {
    script = [
      raw('{not json'),
      json({ something: 'else' }),
      json({ call_inbound: [] }),
      json({ call_inbound: {} }),
    ];
    const { decision, logs, holds } = await run();
    expect(decision).toEqual({ action: 'disconnect', reason: 'empty_answer', attempts: 4 });
    expect(holds).toBe(1);
    expect(logs.map((l) => l.error)).toEqual([
      'the answer is not JSON',
      'the answer has no call_inbound object',
      'the answer has no call_inbound object',
      null,
    ]);
  });

  it('rule 3: a closed connection is retried', async () => {
    script = [hangUp, json({ call_inbound: { override_model_id: 'x' } })];
    const { decision, logs } = await run();
    expect(decision).toMatchObject({ action: 'connect', modelId: 'x', attempts: 2 });
    expect(logs[0]!.error).toMatch(/^network/);
  });

  it('rule 4: four failures fall back, attempts spread over the budget', async () => {
    script = [json({}, 500), hangUp, raw('nope'), slow(400, json({ call_inbound: {} }))];
    const { decision, logs, holds } = await run();
    expect(decision).toMatchObject({ action: 'fallback', attempts: 4 });
    expect(decision.action === 'fallback' && decision.error).toMatch(/^timeout/);
    expect(holds).toBe(1);
    expect(logs.map((l) => l.attempt_number)).toEqual([1, 2, 3, 4]);
    expect(logs.every((l) => l.status === 'failed')).toBe(true);
    expect(received.map((r) => r.at)).toEqual([0, 1000, 2000, 3000]);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(received.every((r) => r.verified)).toBe(true);
  });

  it('maxAttempts 1: no hold, straight to fallback', async () => {
    script = [json({}, 503)];
    const { decision, holds } = await run({}, { maxAttempts: 1 });
    expect(decision).toMatchObject({ action: 'fallback', attempts: 1 });
    expect(holds).toBe(0);
  });

  it('a private address is refused without retries when not allowed', async () => {
    const { decision, logs, holds } = await run({}, { http: createSafeFetch() });
    expect(decision).toMatchObject({ action: 'fallback', attempts: 1 });
    expect(holds).toBe(0);
    expect(logs[0]!.error).toMatch(/^blocked_address/);
    expect(received).toHaveLength(0);
  });

  it('an abort while on hold ends in an aborted fallback', async () => {
    const controller = new AbortController();
    script = [json({}, 500)];
    const { decision } = await run({}, { signal: controller.signal, onHold: () => controller.abort() });
    expect(decision).toEqual({
      action: 'fallback',
      aborted: true,
      attempts: 1,
      error: 'the receiver answered 500',
    });
    expect(received).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { decision } = await run({}, { signal: AbortSignal.abort() });
    expect(decision).toEqual({ action: 'fallback', aborted: true, attempts: 0 });
    expect(received).toHaveLength(0);
  });

  it('throwing callbacks do not change the outcome', async () => {
    script = [json({}, 500), json({ call_inbound: { override_model_id: 'ok' } })];
    const { decision } = await run(
      {},
      {
        onHold: () => {
          throw new Error('hold failed');
        },
        onAttempt: () => {
          throw new Error('log failed');
        },
      },
    );
    expect(decision).toMatchObject({ action: 'connect', modelId: 'ok' });
  });
});

describe('routeInboundCall budget (fake port)', () => {
  it('stops when an attempt would start with no budget left', async () => {
    const c = createManualClock();
    const signals: AbortSignal[] = [];
    const port: HttpPort = async (req) => {
      if (req.signal) signals.push(req.signal);
      c.advance(4000); // each attempt "takes" 4 s of clock time
      return { status: 500, headers: {}, body: '', truncated: false, url: req.url };
    };
    const decision = await routeInboundCall(request(), { http: port, clock: c });
    expect(decision).toMatchObject({ action: 'fallback', attempts: 3 });
    expect(signals).toHaveLength(3);
  });

  it('an unusable secret falls back without sending', async () => {
    let calls = 0;
    const port: HttpPort = async (req) => {
      calls++;
      return { status: 200, headers: {}, body: '{}', truncated: false, url: req.url };
    };
    const decision = await routeInboundCall(request({ secret: 'whsec_***' }), {
      http: port,
      clock: createManualClock(),
    });
    expect(decision).toMatchObject({ action: 'fallback', attempts: 0 });
    expect(calls).toBe(0);
  });
});

describe('interpretInboundAnswer', () => {
  it.each([
    ['{"call_inbound":{}}', { action: 'disconnect' }],
    ['{"call_inbound":{"override_model_id":"  "}}', { action: 'connect', modelId: null }],
    ['{"call_inbound":{"override_model_id":null}}', { action: 'connect', modelId: null }],
    ['{"call_inbound":{"override_model_id":" a1 "}}', { action: 'connect', modelId: 'a1' }],
    ['{"call_inbound":{"override_model_id":7}}', { action: 'invalid' }],
    ['{"call_inbound":{"metadata":[1]}}', { action: 'connect', metadata: {} }],
    ['', { action: 'invalid' }],
    ['null', { action: 'invalid' }],
    ['{"call_inbound":null}', { action: 'invalid' }],
  ])('%s', (body, expected) => {
    expect(interpretInboundAnswer(body)).toMatchObject(expected);
  });

  it('custom_variables: an object or {key, value} items, anything else ignored, __proto__ stays an own key', () => {
    expect(normalizeCustomVariables('x')).toEqual({});
    expect(normalizeCustomVariables([1, 2])).toEqual({});
    expect(normalizeCustomVariables([{ key: 'city', value: 'Oslo' }])).toEqual({ city: 'Oslo' });
    const vars = normalizeCustomVariables(JSON.parse('{"__proto__":{"polluted":1},"a":1}'));
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
    expect(Object.keys(vars)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
