import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/index.ts';
import { ConversationSession } from '../../src/conversation/index.ts';
import { LLMError } from '../../src/providers/index.ts';
import { createScriptedLLM } from '../../src/providers/testing/index.ts';
import { createSimCarrier, type SimLeg } from '../../src/telephony/index.ts';
import { createScriptedCallee } from '../../src/telephony/testing/index.ts';
import { CALL_FALLBACK_LINE, MAX_DURATION_LINE, runTextCall } from '../../src/voice/index.ts';

// The text-mode call (the sim's fast path) over a sim leg: who ends the call and why, the maximum duration, a
// failing model, and a canceled call.

const session = (replies: Parameters<typeof createScriptedLLM>[0], clock = createManualClock()) =>
  new ConversationSession({
    agent: { prompt: 'p', greeting_message: 'Hello, this is Parley.', end_call_reasons: ['wrong number'] },
    llm: createScriptedLLM(replies, { clock, repeatLast: true }),
    style: 'voice',
    clock,
  });

async function dialed(turns: Parameters<typeof createScriptedCallee>[0], options = {}, speed = 0) {
  const clock = createManualClock();
  const carrier = createSimCarrier({ callee: () => createScriptedCallee(turns, options), clock, speed });
  const dialing = carrier.dial({ callId: 'c1', from: '+14155550100', to: '+14155551234' });
  if (speed > 0) await clock.tick(3_000); // the sim rings for 3 s at real-time pace
  const outcome = await dialing;
  if (outcome.kind !== 'answered') throw new Error('not answered');
  return { leg: outcome.leg as SimLeg, clock };
}

describe('runTextCall', () => {
  it('the person says goodbye: completed, human_goodbye, both sides in the transcript', async () => {
    const { leg, clock } = await dialed(['Hi, who is this?', { text: 'Not interested, bye.', hangUp: true }]);
    const s = session([{ text: 'It is Parley about your order.' }], clock);
    const result = await runTextCall({ leg, session: s, clock, maxDurationMs: null, voicemailMessage: null });
    expect(result).toEqual({
      status: 'completed',
      endCallReason: 'human_goodbye',
      customEndCallReason: null,
      errorMessage: null,
    });
    expect(s.transcript().split('\n')).toEqual([
      'bot: Hello, this is Parley.',
      'human: Hello?',
      'bot: It is Parley about your order.',
      'human: Hi, who is this?',
      'bot: It is Parley about your order.',
      'human: Not interested, bye.',
    ]);
  });

  it('the agent ends with a custom reason: custom_end_call carries the condition', async () => {
    const { leg, clock } = await dialed(['I never ordered anything.'], { opening: '' });
    const s = session(
      [
        { toolCalls: [{ name: 'end_call', arguments: { reason: 'wrong number' } }] },
        { text: 'Sorry, goodbye.' },
      ],
      clock,
    );
    const result = await runTextCall({ leg, session: s, clock, maxDurationMs: null, voicemailMessage: null });
    expect(result).toMatchObject({
      status: 'completed',
      endCallReason: 'custom_end_call',
      customEndCallReason: 'wrong number',
    });
    expect(leg.endReason).toBe('local_hangup');
  });

  it('a model failure is answered with the fallback line and the call goes on', async () => {
    const { leg, clock } = await dialed(['One?', { text: 'Bye.', hangUp: true }]);
    let calls = 0;
    const s = session(
      [
        () => {
          calls += 1;
          if (calls === 2) return { error: new LLMError('down', 'llm_unavailable', true) };
          return { text: 'Back again.' };
        },
      ],
      clock,
    );
    const result = await runTextCall({ leg, session: s, clock, maxDurationMs: null, voicemailMessage: null });
    expect(result.status).toBe('completed');
    expect(s.transcript()).toContain(`bot: ${CALL_FALLBACK_LINE}`);
  });

  it('hangs up at the maximum duration with a closing line', async () => {
    const { leg, clock } = await dialed([], { afterScript: { text: 'Tell me more.', hangUp: false } }, 1);
    const s = session([{ text: 'Sure, here is more.' }], clock);
    const done = runTextCall({ leg, session: s, clock, maxDurationMs: 30_000, voicemailMessage: null });
    let finished = false;
    void done.then(() => (finished = true));
    for (let i = 0; i < 120 && !finished; i++) await clock.tick(1_000);
    const result = await done;
    expect(result.endCallReason).toBe('max_duration');
    expect(result.status).toBe('completed');
    expect(s.transcript().split('\n').at(-1)).toBe(`bot: ${MAX_DURATION_LINE}`);
  });

  it('a canceled call hangs up', async () => {
    const { leg, clock } = await dialed([], { afterScript: { text: 'Go on.', hangUp: false } }, 1);
    const controller = new AbortController();
    const done = runTextCall({
      leg,
      session: session([{ text: 'Yes.' }], clock),
      clock,
      maxDurationMs: null,
      voicemailMessage: null,
      signal: controller.signal,
    });
    await clock.tick(5_000);
    controller.abort();
    expect((await done).status).toBe('canceled');
    expect(leg.endReason).toBe('local_hangup');
  });
});
