import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import {
  ActionRecorder,
  createCustomActionTool,
  createSafeFetch,
  runBeforeCall,
  type CustomActionConfig,
} from './index.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base = '';
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/slow') {
        setTimeout(() => res.end('{"late":true}'), 3000).unref();
        return;
      }
      if (path === '/fail') {
        res.statusCode = 503;
        res.end('{"error":"down"}');
        return;
      }
      if (path === '/big') {
        res.end('x'.repeat(100_000));
        return;
      }
      if (path === '/text') {
        res.end('plain words');
        return;
      }
      if (path === '/redirect') {
        res.statusCode = 302;
        res.setHeader('location', '/echo/redirected');
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, name: 'Ann', count: 3 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const fetchPort = createSafeFetch({ allowPrivateNetwork: true });
const newRecorder = () =>
  new ActionRecorder({ call_id: 'c', model_id: 'm', workspace_id: 'w' }, { clock: createManualClock() });

const config = (overrides: Partial<CustomActionConfig> = {}): CustomActionConfig => ({
  name: 'Look up order',
  description: 'Finds an order',
  http_mode: 'POST',
  url: `${base}/echo/{order_id}`,
  headers: [{ key: 'X-Customer', value: '{customer}' }],
  query_parameters: [{ key: 'q', value: '{note}' }],
  json_body_stringified: '{"note": "{note}", "count": {count}, "vip": {vip}, "who": "{customer}"}',
  custom_auth: { is_needed: true, location: 'header', key: 'Bearer', value: 'secret-token' },
  variables_during_the_call: [
    { name: 'order_id', description: 'The order', example: 'A-1', type: 'string' },
    { name: 'note', description: 'A note', example: 'hi', type: 'string' },
    { name: 'count', description: 'How many', example: '2', type: 'integer' },
    { name: 'vip', description: 'VIP?', example: 'true', type: 'boolean' },
  ],
  run_action_before_call_start: false,
  speech_while_using_the_tool: 'One moment while I check.',
  failure_timeout: 1,
  message_error: 'Sorry, I could not look that up.',
  ...overrides,
});

describe('CUSTOM_ACTION tool', () => {
  it('builds the schema from variables_during_the_call', () => {
    const tool = createCustomActionTool(config(), { http: fetchPort });
    expect(tool.spec.name).toBe('Look_up_order');
    expect(tool.messageBefore).toBe('One moment while I check.');
    expect(tool.spec.parameters).toEqual({
      type: 'object',
      properties: {
        order_id: { type: 'string', description: 'The order Example: A-1' },
        note: { type: 'string', description: 'A note Example: hi' },
        count: { type: 'integer', description: 'How many Example: 2' },
        vip: { type: 'boolean', description: 'VIP? Example: true' },
      },
      required: ['order_id', 'note', 'count', 'vip'],
      additionalProperties: false,
    });
  });

  it('fills method, URL, headers, query, auth and an escaped JSON body', async () => {
    const recorder = newRecorder();
    const tool = createCustomActionTool(config(), {
      http: fetchPort,
      recorder,
      variables: { customer: 'Ann "A" Lee' },
    });
    seen.length = 0;
    const note = 'say "hi"\nnext line & more';
    const outcome = await tool.execute({ order_id: 'A/1 2', note, count: '3', vip: true }, {});
    expect(outcome).toEqual({ result: { ok: true, status: 200, data: { ok: true, name: 'Ann', count: 3 } } });
    const req = seen[0];
    expect(req?.method).toBe('POST');
    const url = new URL(req?.url ?? '', base);
    expect(url.pathname).toBe('/echo/A%2F1%202');
    expect(url.searchParams.get('q')).toBe(note.replace('\n', ' '));
    expect(req?.headers['x-customer']).toBe('Ann "A" Lee');
    expect(req?.headers.authorization).toBe('Bearer secret-token');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({ note, count: 3, vip: true, who: 'Ann "A" Lee' });
    expect(recorder.timeline[0]).toMatchObject({ status: 'success', attempt: 1 });
    expect(recorder.executedActions.Look_up_order ?? recorder.executedActions['Look up order']).toMatchObject(
      {
        action_type: 'custom_action_type',
        message_before_action: 'One moment while I check.',
        speak_on_failure: 'Sorry, I could not look that up.',
        return_value: { status: 200 },
      },
    );
  });

  it('fills <name> placeholders, with variables_before_the_call between call variables and arguments', async () => {
    const tool = createCustomActionTool(
      config({
        http_mode: 'GET',
        url: `${base}/echo/<order_id>`,
        headers: [{ key: 'X-Region', value: '<region>' }],
        query_parameters: [
          { key: 'city', value: '<city>' },
          { key: 'who', value: '<customer>' },
        ],
        variables_before_the_call: [
          { key: 'region', value: 'eu-{customer}' },
          { key: 'city', value: 'Bergen' },
          { key: 'order_id', value: 'never-used' },
        ],
        message_before_action_starts: 'This call may be recorded.',
      }),
      { http: fetchPort, variables: { customer: 'c7', city: 'Oslo' } },
    );
    expect(tool.messageBefore).toBe('This call may be recorded. One moment while I check.');
    seen.length = 0;
    await tool.execute({ order_id: 'A1', note: 'n', count: 1, vip: false }, {});
    const url = new URL(seen[0]?.url ?? '', base);
    expect(url.pathname).toBe('/echo/A1');
    // The action's fixed value wins over the call's variable; the model's argument over both.
    expect(url.searchParams.get('city')).toBe('Bergen');
    expect(url.searchParams.get('who')).toBe('c7');
    expect(seen[0]?.headers['x-region']).toBe('eu-c7');
  });

  it('sends GET without a body and puts query auth in the query', async () => {
    const tool = createCustomActionTool(
      config({
        http_mode: 'GET',
        custom_auth: { is_needed: true, location: 'query', key: 'api_key', value: 'k1' },
      }),
      { http: fetchPort },
    );
    seen.length = 0;
    await tool.execute({ order_id: '9', note: 'n', count: 1, vip: false }, {});
    expect(seen[0]?.method).toBe('GET');
    expect(seen[0]?.body).toBe('');
    expect(new URL(seen[0]?.url ?? '', base).searchParams.get('api_key')).toBe('k1');
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('rejects bad arguments without sending anything', async () => {
    const recorder = newRecorder();
    const tool = createCustomActionTool(config(), { http: fetchPort, recorder });
    seen.length = 0;
    const outcome = await tool.execute({ order_id: '1', note: 'n', count: 1.5, vip: true }, {});
    expect(outcome.result).toMatchObject({ ok: false, error: 'the argument "count" must be an integer' });
    expect(outcome.say).toBe('Sorry, I could not look that up.');
    expect(seen).toHaveLength(0);
    expect(recorder.timeline[0]).toMatchObject({ status: 'failed' });
  });

  it('fails on a timeout, with message_error', async () => {
    const recorder = newRecorder();
    const tool = createCustomActionTool(config({ url: `${base}/slow`, failure_timeout: 0.3 }), {
      http: fetchPort,
      recorder,
    });
    const outcome = await tool.execute({ order_id: '1', note: 'n', count: 1, vip: true }, {});
    expect(outcome).toEqual({
      result: { ok: false, error: 'no answer within 0.3 seconds' },
      say: 'Sorry, I could not look that up.',
    });
    expect(recorder.timeline[0]).toMatchObject({
      status: 'failed',
      failed_reason: 'no answer within 0.3 seconds',
    });
  });

  it('fails on a non-2xx answer and passes the body on', async () => {
    const recorder = newRecorder();
    const tool = createCustomActionTool(config({ url: `${base}/fail`, message_error: '' }), {
      http: fetchPort,
      recorder,
    });
    const outcome = await tool.execute({ order_id: '1', note: 'n', count: 1, vip: true }, {});
    expect(outcome).toEqual({
      result: { ok: false, error: 'the server answered 503', status: 503, data: { error: 'down' } },
    });
    expect(recorder.timeline[0]?.failed_reason).toBe('the server answered 503');
  });

  it('cuts an oversized body and passes non-JSON text on', async () => {
    const tool = createCustomActionTool(config({ url: `${base}/big` }), {
      http: fetchPort,
      maxResponseBytes: 1000,
    });
    const big = await tool.execute({ order_id: '1', note: 'n', count: 1, vip: true }, {});
    expect(big.result).toMatchObject({ ok: true, status: 200, note: expect.stringContaining('cut off') });
    expect((big.result as { data: string }).data).toHaveLength(1000);

    const text = createCustomActionTool(config({ url: `${base}/text` }), { http: fetchPort });
    expect((await text.execute({ order_id: '1', note: 'n', count: 1, vip: true }, {})).result).toEqual({
      ok: true,
      status: 200,
      data: 'plain words',
    });
  });

  it('follows a redirect to an allowed address', async () => {
    const tool = createCustomActionTool(config({ http_mode: 'GET', url: `${base}/redirect` }), {
      http: fetchPort,
    });
    seen.length = 0;
    const outcome = await tool.execute({ order_id: '1', note: 'n', count: 1, vip: true }, {});
    expect(outcome.result).toMatchObject({ ok: true, status: 200 });
    expect(seen.map((s) => new URL(s.url, base).pathname)).toEqual(['/redirect', '/echo/redirected']);
  });

  it('runs before the call with the call variables and returns prompt variables', async () => {
    const recorder = newRecorder();
    const result = await runBeforeCall(
      config({
        run_action_before_call_start: true,
        variables_during_the_call: [{ name: 'order_id', description: '', example: '', type: 'string' }],
        json_body_stringified: '{"id": "{order_id}"}',
      }),
      { http: fetchPort, recorder, variables: { order_id: 'B-7', customer: 'Bo' } },
    );
    expect(result.ok).toBe(true);
    expect(result.variables).toEqual({
      Look_up_order_result: JSON.stringify({ ok: true, name: 'Ann', count: 3 }),
      ok: true,
      name: 'Ann',
      count: 3,
    });
    expect(recorder.executedActions['Look up order']?.run_action_before_call_start).toBe(true);
  });
});
