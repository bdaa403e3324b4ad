import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineSpeech, type SpeechSetup } from '../../src/app.ts';
import { silentLogger } from '../../src/core/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { matchedWords, words } from '../../src/providers/testing/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createTestApi, type TestApi } from '../helpers.ts';

// The sim's first call as `npm start` gives it (issue 23): the offline speech in audio mode, the
// builtin model on both sides, the README's agent, the sim at real speed. The callee's voice notes
// what it says, so the words it said can be looked for in the transcript's human lines (what the
// agent heard). Not timing-based: it checks words, not delays (bench case `sim-first-call`
// measures more agents and calls).

const FINAL = new Set(['completed', 'failed', 'canceled']);

describe("the sim's first call with the offline defaults", () => {
  let speech: SpeechSetup;
  let t: TestApi;
  const said: string[] = [];

  beforeAll(async () => {
    const offline = await offlineSpeech({ logger: silentLogger(), simMode: 'audio' });
    const farEnd = offline.farEnd;
    if (!farEnd) throw new Error(`PocketSphinx is needed for this test: ${JSON.stringify(offline.choice)}`);
    speech = {
      ...offline,
      farEnd: {
        speak(text, signal) {
          said.push(text);
          return farEnd.speak(text, signal);
        },
        listen: (heard, signal) => farEnd.listen(heard, signal),
      },
    };
    t = await createTestApi(storeTargets()[0]!, { llm: createBuiltinLLM(), speech, simSpeed: 1 });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await speech?.close();
  });

  it('reads as a conversation: the agent hears what the callee says', async () => {
    const agent = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: {
        type: 'outbound',
        name: 'Solar',
        agent: {
          prompt: 'You are Sam from SunCo. Ask if they own their home. Ask what time works best for them.',
          greeting_message: 'Hi {name}, this is Sam from SunCo.',
        },
      },
    });
    const modelId = agent.json().response.model_id as string;
    await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: '+14155550100', provider: 'sim' },
    });
    await t.call({
      method: 'PUT',
      url: `/v2/assistants/${modelId}/phone_numbers`,
      payload: { phone_numbers: ['+14155550100'] },
    });
    const placed = await t.call({
      method: 'POST',
      url: '/v2/calls',
      payload: { model_id: modelId, phone: '+14155551234', name: 'Ann' },
    });
    expect(placed.statusCode).toBe(200);
    const callId = placed.json().response.call_id as string;

    let call: Record<string, unknown> = {};
    await expect
      .poll(
        async () => {
          call = (await t.call({ method: 'GET', url: `/v2/calls/${callId}` })).json().response.calls[0];
          return FINAL.has(String(call.status));
        },
        { timeout: 100_000, interval: 500 },
      )
      .toBe(true);

    const transcript = String(call.transcript);
    expect(call.status, transcript).toBe('completed');
    const human = transcript
      .split('\n')
      .filter((l) => l.startsWith('human: '))
      .map((l) => l.slice(7));
    // The callee answered the questions (own home, a time) and closed: at least four lines.
    expect(said.length, said.join('\n')).toBeGreaterThanOrEqual(4);
    const saidWords = words(said.join(' '));
    const found = matchedWords(saidWords, words(human.join(' ')));
    // 90-100% in the bench; 80% leaves room for a loaded machine's slips.
    expect(
      found / saidWords.length,
      `${transcript}\n\ncallee said:\n${said.join('\n')}`,
    ).toBeGreaterThanOrEqual(0.8);
  }, 120_000);
});
