import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { createScriptedLLM } from '../../src/providers/testing/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// A chat's agent answers from its knowledge base: each user message retrieves the best passages
// of the attached base and puts them in the model's context.

const HOURS = 'Bright Smile Dental is open Monday to Friday from 8am to 6pm and on Saturday from 9am to 1pm.';
const PARKING = 'Free parking is available behind the clinic, entrance on Elm Street.';

forEachStore('chats answer from the knowledge base', (target) => {
  for (const model of ['scripted', 'builtin'] as const) {
    let t: TestApi;
    const scripted = createScriptedLLM([{ text: 'Here is what I know.' }], { repeatLast: true });

    beforeAll(async () => {
      t = await createTestApi(target, { llm: model === 'builtin' ? createBuiltinLLM() : scripted });
    });
    afterAll(() => t.close());

    it(`with the ${model} model`, async () => {
      const agent = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: agentBody({
          type: 'chat',
          agent: {
            prompt: 'You are Mia from Bright Smile Dental. You answer questions.',
            greeting_message: 'Hi!',
          },
        }),
      });
      const modelId = agent.json().response.model_id as string;
      const base = await t.call({ method: 'POST', url: '/v2/knowledge_base', payload: { name: 'FAQ' } });
      const baseId = (base.json().response.knowledge_base_id ?? base.json().response.id) as string;
      expect(base.statusCode, base.body).toBe(200);
      for (const content of [HOURS, PARKING]) {
        const source = await t.call({
          method: 'POST',
          url: `/v2/knowledge_base/${baseId}/sources`,
          payload: { type: 'text', content },
        });
        expect(source.statusCode, source.body).toBe(200);
      }
      const attach = await t.call({
        method: 'POST',
        url: `/v2/knowledge_base/${baseId}/attach?model_id=${modelId}`,
      });
      expect(attach.statusCode, attach.body).toBe(200);

      const chatId = randomUUID();
      await t.call({ method: 'POST', url: `/v2/chat/${chatId}`, payload: { model_id: modelId } });
      const reply = await t.call({
        method: 'POST',
        url: `/v2/chat/${chatId}/messages`,
        payload: { message: 'When are you open on Saturday?' },
      });
      expect(reply.statusCode, reply.body).toBe(200);
      const answer = reply.json().response.agent_message as string;
      if (model === 'builtin') {
        expect(answer).toContain('9am to 1pm');
      } else {
        const knowledge = scripted.requests
          .at(-1)
          ?.messages.find((m) => m.role === 'system' && m.content.startsWith('## Knowledge'));
        expect(knowledge?.content.split('\n')[1]).toBe(`- ${HOURS}`);
        expect(answer).toBe('Here is what I know.');
      }
    });
  }
});
