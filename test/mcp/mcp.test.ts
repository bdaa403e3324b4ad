import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParley, unwrap } from '../../sdk/index.ts';
import { startRealServer, type RealServer } from '../sdk/real-server.ts';

// The MCP server as an AI assistant meets it: the official SDK's client, over the streamable HTTP
// transport of the real server (POST /v2/mcp) and over stdio (`parley mcp` as a subprocess).

const BIN = resolve(import.meta.dirname, '../../bin/parley.js');
const FROM = '+14155550188';
const TOOLS = [
  'chat',
  'control_campaign',
  'create_agent',
  'create_campaign',
  'get_agent',
  'get_call',
  'get_campaign',
  'get_simulation_session',
  'list_agents',
  'list_calls',
  'list_campaigns',
  'place_call',
  'run_simulation_suite',
  'update_agent',
];

let server: RealServer;

beforeAll(async () => {
  server = await startRealServer();
  const parley = createParley({ baseUrl: server.url, apiKey: server.key });
  await unwrap(parley.api.POST('/v2/custom-numbers', { body: { phone_number: FROM, provider: 'sim' } }));
}, 60_000);
afterAll(async () => server?.close());

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/v2/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** The tool's JSON answer; fails the test on an error result. */
async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  expect(result.isError, `${name}: ${text}`).toBeFalsy();
  return JSON.parse(text) as T;
}

async function refusal(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  return result.content[0]?.type === 'text' ? result.content[0].text : '';
}

describe('the MCP server over streamable HTTP', () => {
  let client: Client;
  let agentId: string;
  beforeAll(async () => {
    client = await httpClient(server.key);
  });
  afterAll(async () => client?.close());

  it('names itself and lists its tools, each with an input schema', async () => {
    expect(client.getServerVersion()?.name).toBe('parley');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const place = tools.find((t) => t.name === 'place_call');
    expect(place?.inputSchema.required).toEqual(expect.arrayContaining(['model_id', 'phone', 'name']));
  });

  it('creates, updates and reads an agent', async () => {
    const created = await call<{ model_id: string }>(client, 'create_agent', {
      name: 'MCP agent',
      prompt: 'You book tables.',
      greeting_message: 'Hello from MCP!',
    });
    agentId = created.model_id;
    await call(client, 'update_agent', { model_id: agentId, patience_level: 'high' });
    await unwrap(
      createParley({ baseUrl: server.url, apiKey: server.key }).api.PUT('/v2/assistants/{model_id}', {
        params: { path: { model_id: agentId } },
        body: { phone_number: FROM },
      }),
    );
    const read = await call<{ assistants: { name: string; agent: Record<string, unknown> }[] }>(
      client,
      'get_agent',
      {
        model_id: agentId,
      },
    );
    expect(read.assistants[0]?.name).toBe('MCP agent');
    expect(read.assistants[0]?.agent).toMatchObject({
      prompt: 'You book tables.',
      greeting_message: 'Hello from MCP!',
      patience_level: 'high',
    });
    const listed = await call<{ assistants: { model_id: string }[] }>(client, 'list_agents', {});
    expect(listed.assistants.map((a) => a.model_id)).toContain(agentId);
  });

  it('places a call, reads it and finds it in the list', async () => {
    const placed = await call<{ call_id: string }>(client, 'place_call', {
      model_id: agentId,
      phone: '+14155550111',
      name: 'Ann',
      custom_variables: { table_for: '4' },
    });
    const read = await call<{ calls: { call_id: string; model_id: string }[] }>(client, 'get_call', {
      call_id: placed.call_id,
    });
    expect(read.calls[0]).toMatchObject({ call_id: placed.call_id, model_id: agentId });
    const listed = await call<{ calls: { call_id: string }[] }>(client, 'list_calls', { model_id: agentId });
    expect(listed.calls.map((c) => c.call_id)).toEqual([placed.call_id]);
  });

  it('runs a campaign: create, read, pause, cancel', async () => {
    const batch = await call<{ batch_call_id: string; total_task_count: number }>(client, 'create_campaign', {
      model_id: agentId,
      from_phone_number: FROM,
      name: 'MCP campaign',
      recipients: [{ to_phone_number: '+14155550121' }, { to_phone_number: '+14155550122', lead_name: 'Bo' }],
    });
    expect(batch.total_task_count).toBe(2);
    const read = await call<{ name: string }>(client, 'get_campaign', { batch_call_id: batch.batch_call_id });
    expect(read.name).toBe('MCP campaign');
    const paused = await call<{ status: string }>(client, 'control_campaign', {
      batch_call_id: batch.batch_call_id,
      action: 'pause',
    });
    expect(paused.status).toBe('paused');
    const canceled = await call<{ status: string }>(client, 'control_campaign', {
      batch_call_id: batch.batch_call_id,
      action: 'cancel',
    });
    expect(canceled.status).toBe('canceled');
    const listed = await call<{ batch_calls: { batch_call_id: string }[] }>(client, 'list_campaigns', {});
    expect(listed.batch_calls.map((b) => b.batch_call_id)).toContain(batch.batch_call_id);
  });

  it('chats with an agent: the first message starts the chat, the next goes on with it', async () => {
    const chatId = randomUUID();
    const first = await call<{ agent_message: string; turn_number: number }>(client, 'chat', {
      chat_id: chatId,
      model_id: agentId,
      message: 'Hi, I would like a table.',
    });
    expect(first.agent_message.length).toBeGreaterThan(0);
    const second = await call<{ turn_number: number }>(client, 'chat', {
      chat_id: chatId,
      model_id: agentId,
      message: 'For four, tonight.',
    });
    expect(second.turn_number).toBe(first.turn_number + 1);
    const chat = await unwrap(
      createParley({ baseUrl: server.url, apiKey: server.key }).api.GET('/v2/chat/{chat_id}', {
        params: { path: { chat_id: chatId } },
      }),
    );
    expect(chat.transcript).toContain('Hello from MCP!');
    expect(chat.transcript).toContain('Hi, I would like a table.');
    expect(chat.transcript).toContain('For four, tonight.');
  });

  it('runs a simulation suite and reads its session', async () => {
    const parley = createParley({ baseUrl: server.url, apiKey: server.key });
    const kase = await unwrap(
      parley.api.POST('/v2/simulation_cases', {
        body: {
          name: 'Books a table',
          prompt: 'You want a table for two.',
          success_criteria: ['A table is offered'],
        },
      }),
    );
    const suite = await unwrap(
      parley.api.POST('/v2/simulation_suites', {
        body: { name: 'MCP suite', model_id: agentId, case_ids: [kase.simulation_case.simulation_case_id] },
      }),
    );
    const run = await call<{ session_id: string; total_cases: number }>(client, 'run_simulation_suite', {
      suite_id: suite.id,
      target_agent_id: agentId,
    });
    expect(run.total_cases).toBe(1);
    const session = await call<Record<string, unknown>>(client, 'get_simulation_session', {
      session_id: run.session_id,
    });
    expect(JSON.stringify(session)).toContain(run.session_id);
  });

  it("answers a refusal in the API's words, naming the field", async () => {
    const text = await refusal(client, 'place_call', {
      model_id: agentId,
      phone: 'not a number',
      name: 'Ann',
    });
    expect(text).toMatch(/^400 .*phone/);
    expect(await refusal(client, 'get_call', { call_id: 'no-such-call' })).toMatch(
      /^400 .*call_id must be a UUID/,
    );
    expect(await refusal(client, 'get_call', { call_id: randomUUID() })).toMatch(/not found/);
    // Arguments the tool's schema refuses never reach the API.
    const bad = (await client.callTool({
      name: 'control_campaign',
      arguments: { batch_call_id: 'b', action: 'explode' },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
  });

  it('acts in the workspace of its key and nothing more', async () => {
    const parley = createParley({ baseUrl: server.url, apiKey: server.key });
    const sub = await unwrap(parley.api.POST('/v2/subaccounts', { body: { name: 'Other' } }));
    const other = await httpClient(sub.api_key);
    try {
      const listed = await call<{ assistants: unknown[] }>(other, 'list_agents', {});
      expect(listed.assistants).toEqual([]);
      expect(await refusal(other, 'get_agent', { model_id: agentId })).toMatch(/^4\d\d agent .* not found/);
    } finally {
      await other.close();
    }
  });

  it('refuses a client without a valid key (401) and a GET (405)', async () => {
    await expect(httpClient('pk_not_a_key_of_this_server')).rejects.toThrow(/Invalid or expired token/);
    const get = await fetch(`${server.url}/v2/mcp`, { headers: { authorization: `Bearer ${server.key}` } });
    expect(get.status).toBe(405);
    const none = await fetch(`${server.url}/v2/mcp`, { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
  });
});

describe('the MCP server over stdio (parley mcp)', () => {
  it('lists its tools and acts with the key it was started with', async () => {
    const client = new Client({ name: 'parley-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--url', server.url, '--key', server.key],
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      const created = await call<{ model_id: string }>(client, 'create_agent', { name: 'Over stdio' });
      const listed = await call<{ assistants: { model_id: string; name: string }[] }>(
        client,
        'list_agents',
        {},
      );
      expect(listed.assistants.find((a) => a.model_id === created.model_id)?.name).toBe('Over stdio');
    } finally {
      await client.close();
    }
  }, 30_000);
});
