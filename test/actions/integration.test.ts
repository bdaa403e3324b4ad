import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationSession, ToolRegistry } from '../../src/conversation/index.ts';
import { createManualClock } from '../../src/core/index.ts';
import { createScriptedLLM } from '../../src/providers/testing/index.ts';
import {
  ActionRecorder,
  CollectedVariables,
  createCustomActionTool,
  createInformationExtractorTool,
  createSafeFetch,
} from '../../src/actions/index.ts';

let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ order: req.url, status: 'shipped' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('actions inside a ConversationSession', () => {
  it('runs an extractor and a custom action as tools', async () => {
    const clock = createManualClock();
    const recorder = new ActionRecorder({ call_id: 'c1', model_id: 'a1', workspace_id: 'w1' }, { clock });
    const variables = new CollectedVariables();
    const tools = new ToolRegistry()
      .register(
        createInformationExtractorTool(
          { identifier: 'order_id', description: 'The order number', kind: 'open_question' },
          { variables, recorder },
        ),
      )
      .register(
        createCustomActionTool(
          {
            name: 'order_status',
            description: 'Looks up an order',
            http_mode: 'GET',
            url: `${base}/orders/{order_id}`,
            variables_during_the_call: [
              { name: 'order_id', description: 'Order', example: '42', type: 'string' },
            ],
          },
          { http: createSafeFetch({ allowPrivateNetwork: true }), recorder },
        ),
      );
    const llm = createScriptedLLM(
      [
        { toolCalls: [{ name: 'extract_order_id', arguments: { value: '' } }] },
        {
          toolCalls: [
            { name: 'extract_order_id', arguments: { value: 'A42' } },
            { name: 'order_status', arguments: { order_id: 'A42' } },
          ],
        },
        { text: 'Your order A42 has shipped.' },
      ],
      { clock },
    );
    const session = new ConversationSession({
      agent: { prompt: 'Help.' },
      llm,
      style: 'voice',
      clock,
      tools,
    });
    const turn = await session.respond('Where is my order A42?');
    expect(turn.reply).toBe('Your order A42 has shipped.');
    expect(llm.requests[0]?.tools?.map((t) => t.name)).toEqual([
      'end_call',
      'extract_order_id',
      'order_status',
    ]);
    expect(session.toolCalls.map((c) => [c.name, (c.result as { ok: boolean }).ok])).toEqual([
      ['extract_order_id', false],
      ['extract_order_id', true],
      ['order_status', true],
    ]);
    expect(session.toolCalls[2]?.result).toEqual({
      ok: true,
      status: 200,
      data: { order: '/orders/A42', status: 'shipped' },
    });
    expect(variables.collected()).toEqual({ order_id: { value: 'A42', collected: true } });
    const snap = recorder.snapshot();
    expect(snap.action_execution_timeline.map((t) => [t.name, t.attempt, t.status])).toEqual([
      ['extract_order_id', 1, 'failed'],
      ['extract_order_id', 2, 'success'],
      ['order_status', 1, 'success'],
    ]);
    expect(Object.keys(snap.executed_actions)).toEqual(['extract_order_id', 'order_status']);
  });
});
