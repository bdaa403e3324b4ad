import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allAgents,
  allBatchTasks,
  allCalls,
  allChats,
  createParley,
  ParleyError,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type Parley,
} from '../../sdk/index.ts';
import { signWebhook } from '../../src/webhooks/index.ts';
import { freePort } from '../e2e/harness.ts';
import { startRealServer, type RealServer } from './real-server.ts';

// The SDK against the real server on a real port: typed requests, the envelope, errors that name
// the field, paging over every item, and webhooks signed as the server signs them.

let server: RealServer;
let parley: Parley;
let agentId: string;
const FROM = '+14155550177';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

beforeAll(async () => {
  server = await startRealServer();
  parley = createParley({ baseUrl: `${server.url}/v2/`, apiKey: server.key });
  await unwrap(parley.api.POST('/v2/custom-numbers', { body: { phone_number: FROM, provider: 'sim' } }));
  const created = await unwrap(
    parley.api.POST('/v2/assistants', {
      body: { type: 'outbound', name: 'SDK agent', phone_number: FROM, agent: { prompt: 'Say hello.' } },
    }),
  );
  agentId = created.model_id;
}, 60_000);
afterAll(async () => server?.close());

describe('the SDK', () => {
  it('sends typed requests and returns the response inside the envelope', async () => {
    const read = await unwrap(
      parley.api.GET('/v2/assistants/{model_id}', { params: { path: { model_id: agentId } } }),
    );
    expect(read.assistants[0]?.name).toBe('SDK agent');
    expect(read.assistants[0]?.agent.prompt).toBe('Say hello.');
    expect(parley.baseUrl).toBe(server.url);
  });

  it('throws a ParleyError that names the field the server refused', async () => {
    const err = await unwrap(
      parley.api.POST('/v2/calls', { body: { model_id: agentId, phone: 'not a number', name: 'Ann' } }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParleyError);
    const e = err as ParleyError;
    expect(e.status).toBe(400);
    expect(e.description).toMatch(/phone/);
    expect(e.retryable).toBe(false);
    expect(e.summary).toBe(`400 ${e.description}`);
  });

  it('says 401 for a key the server does not know, and gives no status when nothing answers', async () => {
    const wrong = createParley({ baseUrl: server.url, apiKey: 'pk_not_a_key_of_this_server' });
    const denied = await unwrap(wrong.api.GET('/v2/workspace')).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(ParleyError);
    expect((denied as ParleyError).status).toBe(401);

    const nowhere = createParley({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: server.key });
    const lost = await unwrap(nowhere.api.GET('/v2/workspace')).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(ParleyError);
    expect((lost as ParleyError).status).toBeUndefined();
    expect((lost as ParleyError).retryable).toBe(true);
  });

  it('pages through every agent, call and chat', async () => {
    for (let i = 0; i < 4; i += 1) {
      await unwrap(
        parley.api.POST('/v2/assistants', {
          body: { type: 'chat', name: `Paged ${i}`, agent: { prompt: 'Hi.' } },
        }),
      );
    }
    const agents = await collect(allAgents(parley, {}, 2));
    expect(agents.map((a) => a.name).sort()).toEqual([
      'Paged 0',
      'Paged 1',
      'Paged 2',
      'Paged 3',
      'SDK agent',
    ]);

    const placed: string[] = [];
    for (const phone of ['+14155550101', '+14155550102', '+14155550103']) {
      placed.push(
        (await unwrap(parley.api.POST('/v2/calls', { body: { model_id: agentId, phone, name: 'Ann' } })))
          .call_id,
      );
    }
    const calls = await collect(allCalls(parley, { model_id: agentId }, 2));
    expect(calls.map((c) => c.call_id).sort()).toEqual([...placed].sort());

    const chatIds = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of chatIds) {
      await unwrap(
        parley.api.POST('/v2/chat/{chat_id}', {
          params: { path: { chat_id: id } },
          body: { model_id: agentId },
        }),
      );
    }
    const chats = await collect(allChats(parley, { agent_id: agentId }, 2));
    expect(chats.map((c) => c.chat_id).sort()).toEqual([...chatIds].sort());
  });

  it("pages through a campaign's recipients", async () => {
    const tasks = Array.from({ length: 5 }, (_, i) => ({ to_phone_number: `+1415555020${i}` }));
    const batch = await unwrap(
      parley.api.POST('/v2/calls/batch', { body: { model_id: agentId, from_phone_number: FROM, tasks } }),
    );
    const seen = await collect(allBatchTasks(parley, batch.batch_call_id, {}, 2));
    expect(seen.map((t) => t.to_phone_number).sort()).toEqual(tasks.map((t) => t.to_phone_number));
  });

  it('verifies a webhook signed as the server signs it, and refuses a changed one', async () => {
    const { webhook_secret: secret } = await unwrap(parley.api.GET('/v2/webhook_secret'));
    const body = JSON.stringify({ call: { call_id: 'c1', status: 'completed' } });
    const headers = signWebhook({ id: 'msg_1', timestampMs: Date.now(), body, secrets: [secret] });
    expect(verifyWebhook(body, new Headers(headers), secret)).toEqual(JSON.parse(body));
    expect(verifyWebhook(body, headers, secret)).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(body.replace('completed', 'failed'), headers, secret)).toThrow(
      WebhookVerificationError,
    );
    const old = signWebhook({ id: 'msg_2', timestampMs: Date.now() - 3_600_000, body, secrets: [secret] });
    expect(() => verifyWebhook(body, old, secret)).toThrow(WebhookVerificationError);
  });
});

describe('the SDK before a server that is not Parley', () => {
  it("reads a proxy's error page and an answer that is not JSON", async () => {
    const proxy = createServer((req, res) => {
      if (req.url === '/v2/workspace') {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway: upstream down</html>');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status": "ok", "resp');
      }
    });
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
    try {
      const { port } = proxy.address() as AddressInfo;
      const client = createParley({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' });
      const gateway = (await unwrap(client.api.GET('/v2/workspace')).catch((e: unknown) => e)) as ParleyError;
      expect(gateway.status).toBe(502);
      expect(gateway.summary).toBe('502 <html>Bad gateway: upstream down</html>');
      expect(gateway.retryable).toBe(true);
      const garbled = (await unwrap(client.api.GET('/v2/webhook_secret')).catch(
        (e: unknown) => e,
      )) as ParleyError;
      expect(garbled).toBeInstanceOf(ParleyError);
      expect(garbled.description).toBe('the answer is not JSON');
    } finally {
      await new Promise((done) => proxy.close(done));
    }
  });
});
