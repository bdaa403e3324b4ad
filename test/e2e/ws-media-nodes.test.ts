import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { http } from './harness.ts';
import {
  createWorkspace,
  killAll,
  ok,
  postgresStore,
  serve,
  until,
  type Reader,
  type TestStore,
} from './campaign-helpers.ts';

// Calls across nodes (issue 16, docs/ws-media.md "Several nodes"): two `parley serve` processes
// on one PostgreSQL database. A WS media test call started on one node but naming the other runs
// on the other: its session is handed over through the store, the client binds there, hears the
// agent from there, and the record says which node ran it. Unknown and dead nodes are a 502. An
// API-only node sends its clients and its starts to a node that runs these calls.

const NODES = { a: 'wsnode-a', b: 'wsnode-b', api: 'wsnode-api' };

const pgUrl = process.env.PARLEY_TEST_DATABASE_URL;
if (!pgUrl)
  console.log('ws-media-nodes skipped: two nodes need PostgreSQL and PARLEY_TEST_DATABASE_URL is not set');

interface Client {
  socket: WebSocket;
  texts: Record<string, unknown>[];
  audioBytes: () => number;
  closed: Promise<number>;
}

/** A bare (unenveloped) answer that must be 200, as the WS media routes give. */
async function bare(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await http(base, method, path, key, body);
  if (res.status !== 200)
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json as Record<string, string>;
}

async function connect(url: string): Promise<Client> {
  const socket = new WebSocket(url);
  const texts: Record<string, unknown>[] = [];
  let audio = 0;
  socket.on('message', (data, isBinary) => {
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    if (isBinary) audio += bytes.byteLength;
    else texts.push(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, texts, audioBytes: () => audio, closed };
}

describe('WS media calls across nodes on PostgreSQL', () => {
  let store: TestStore | undefined;
  let reader: Reader | undefined;

  afterAll(async () => {
    await killAll();
    await reader?.close();
    await store?.cleanup();
  });

  it.skipIf(!pgUrl)(
    'a start sent to one node runs the call on the node it names; unknown and dead nodes are 502',
    async () => {
      store = await postgresStore(pgUrl!, 'parley_wsnodes');
      const env = { ...store.env, PARLEY_SIM_MODE: 'text' };
      const { key } = await createWorkspace(env, 'wsnodes', 4);
      reader = await store.reader();
      const [a, b] = await Promise.all([
        serve({ env, node: NODES.a, lifetimeMs: 90_000 }),
        serve({ env, node: NODES.b, lifetimeMs: 90_000 }),
      ]);
      // An API-only node runs no calls and serves no socket.
      const api = await serve({ env, node: NODES.api, role: 'api', lifetimeMs: 90_000 });
      const agent = await ok(a.url, key, 'POST', '/v2/assistants', {
        type: 'outbound',
        name: 'Nodes',
        agent: { prompt: 'You are a test agent.', greeting_message: 'Hello this is the parley test agent.' },
      });
      const modelId = agent.model_id as string;

      // Each node answers base-url with its own URL, and its socket says its own name.
      const baseB = await bare(b.url, key, 'GET', '/v2/calls/outbound-test-ws-media/base-url');
      expect(baseB.wsMediaBaseUrl).toBe(`${b.url.replace(/^http/, 'ws')}/v2/calls/ws-media`);
      const baseA = await bare(a.url, key, 'GET', '/v2/calls/outbound-test-ws-media/base-url');
      expect(baseA.wsMediaBaseUrl).toBe(`${a.url.replace(/^http/, 'ws')}/v2/calls/ws-media`);

      // Connect-then-bind: connected to B, started on A naming B.
      const onB = await connect(baseB.wsMediaBaseUrl as string);
      await until('server_info', async () => onB.texts[0], 10_000);
      expect(onB.texts[0]).toEqual({ type: 'server_info', 'server-name': NODES.b });
      const started = await http(a.url, 'POST', '/v2/calls/outbound-test-ws-media', key, {
        modelId,
        wsMediaCodec: 'pcmu',
        wsMediaFraming: 'payload',
        wsMediaServerName: NODES.b,
      });
      expect(started.status).toBe(200);
      expect(started.json.wsMediaUrl).toMatch(
        new RegExp(`^${b.url.replace(/^http/, 'ws')}/v2/calls/ws-media\\?sid=`),
      );
      onB.socket.send(JSON.stringify({ type: 'bind', sid: started.json.sid }));
      await until('call_info', async () => onB.texts.find((t) => t.type === 'call_info'), 10_000);
      expect(onB.texts.find((t) => t.type === 'call_info')).toMatchObject({
        callId: started.json.callId,
        codec: 'pcmu',
      });
      // B runs the call: the agent's greeting comes from there, and the record says so.
      await until(
        'the greeting audio',
        async () => (onB.audioBytes() >= 160 * 25 ? true : undefined),
        20_000,
      );
      const [row] = await reader.all<{ node: string; status: string }>(
        'select node, status from calls where id = ?',
        [started.json.callId],
      );
      expect(row).toEqual({ node: NODES.b, status: 'in-progress' });
      onB.socket.close(1000);
      await until(
        'the call to end on B',
        async () => {
          const found = await ok(a.url, key, 'GET', `/v2/calls/${started.json.callId as string}`);
          return found.calls[0].status === 'completed' ? found : undefined;
        },
        20_000,
      );

      // Legacy flow the other way round: sent to B, naming A; the URL binds on A.
      const legacy = await bare(b.url, key, 'POST', '/v2/calls/outbound-test-ws-media', {
        modelId,
        wsMediaCodec: 'l16',
        wsMediaFraming: 'rtp',
        wsMediaServerName: NODES.a,
      });
      expect(legacy.wsMediaUrl).toMatch(new RegExp(`^${a.url.replace(/^http/, 'ws')}/`));
      const onA = await connect(legacy.wsMediaUrl as string);
      await until('call_info on A', async () => onA.texts.find((t) => t.type === 'call_info'), 10_000);
      expect(onA.texts[0]).toEqual({ type: 'server_info', 'server-name': NODES.a });
      // Its session id is no use on B.
      const wrong = await connect(`${baseB.wsMediaBaseUrl as string}?sid=${legacy.sid as string}`);
      expect(await wrong.closed).toBe(4001);
      onA.socket.close(1000);

      // A node nobody knows, and one that stopped answering long ago.
      const unknown = await http(a.url, 'POST', '/v2/calls/outbound-test-ws-media', key, {
        modelId,
        wsMediaServerName: 'wsnode-nobody',
      });
      expect(unknown.status).toBe(502);
      expect(unknown.json.error).toMatch(/wsMediaServerName: no node is named "wsnode-nobody"/);
      await reader.all(
        "insert into nodes (name, started_at, last_seen_at, public_url, ws_media) values ('wsnode-gone', 1, 1, 'http://127.0.0.1:9', 1)",
      );
      const dead = await http(b.url, 'POST', '/v2/calls/outbound-test-ws-media', key, {
        modelId,
        wsMediaServerName: 'wsnode-gone',
      });
      expect(dead.status).toBe(502);
      expect(dead.json).toEqual({ error: 'wsMediaServerName: node "wsnode-gone" is not running' });
      // Neither refusal left a call behind.
      const calls = await reader.all<{ n: string }>('select count(*) as n from calls');
      expect(Number(calls[0]!.n)).toBe(2);

      // The API-only node sends clients to a node that runs WS media calls, and so do its starts.
      const runners = [a.url, b.url].map((url) => `${url.replace(/^http/, 'ws')}/v2/calls/ws-media`);
      const viaApi = await bare(api.url, key, 'GET', '/v2/calls/outbound-test-ws-media/base-url');
      expect(runners).toContain(viaApi.wsMediaBaseUrl);
      const apiStart = await bare(api.url, key, 'POST', '/v2/calls/outbound-test-ws-media', { modelId });
      expect(runners.some((r) => apiStart.wsMediaUrl!.startsWith(`${r}?sid=`))).toBe(true);
      const named = await http(api.url, 'POST', '/v2/calls/outbound-test-ws-media', key, {
        modelId,
        wsMediaServerName: NODES.api,
      });
      expect(named.status).toBe(502);
      expect(named.json).toEqual({ error: 'wsMediaServerName: node "wsnode-api" does not run calls' });
    },
    90_000,
  );
});
