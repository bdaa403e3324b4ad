import { describe, expect, it } from 'vitest';
import { runScriptedCall, type ScriptedCall } from './testing/index.ts';

// Barge-in: caller speech cuts the agent off within one frame, the transcript keeps only what was
// played, and short speech (a backchannel) does not count. The greeting is made interruptible
// here (it is not by default: session-greeting.test.ts) to test barge-in on a long line.

const LONG_GREETING =
  'Hello, this is Parley. I am calling about your order from last week. It should arrive soon. Is now a good time to talk?';

const greetingTurn = (call: ScriptedCall) => call.result.quality.per_turn.find((t) => t.kind === 'greeting');

describe('barge-in', () => {
  it('stops playout within one frame and keeps only what was heard in the transcript', async () => {
    const call = await runScriptedCall({
      agent: { greeting_message: LONG_GREETING },
      settings: { greetingInterruptible: true, minWordsToInterrupt: 2, fadeOutFrames: 0 },
      script: [
        { waitForAgentAudio: true },
        { wait: 1_500 },
        { say: 'stop please now' },
        { waitForAgentSilence: 300 },
        { hangup: true },
      ],
      replies: [{ text: 'Sorry, go ahead.' }],
    });
    const { result, leg, conversation, startedAt } = call;
    const greeting = greetingTurn(call);
    const decidedAt = startedAt + (greeting?.interrupted_at ?? NaN);
    expect(result.quality.interruptions).toBe(1);
    // The decision came while the caller said the second word ("stop please" is 25 frames).
    const saidAt = leg.saidAt[0]?.at ?? 0;
    expect(decidedAt - saidAt).toBeGreaterThanOrEqual(480);
    expect(decidedAt - saidAt).toBeLessThanOrEqual(560);
    // Nothing played from one frame after the decision until the reply.
    const reply = result.quality.per_turn.find((t) => t.kind === 'reply');
    const replyOut = startedAt + (reply?.first_frame_out_at ?? NaN);
    expect(replyOut - decidedAt).toBeGreaterThan(500);
    expect(leg.played.filter((p) => p.at > decidedAt + 20 && p.at < replyOut).map((p) => p.at)).toEqual([]);
    expect(leg.clears.map((c) => c.at)).toEqual([decidedAt]);

    const heard = leg.heardText(0, decidedAt);
    const delivered = conversation.turns[0]?.text ?? '';
    expect(conversation.turns[0]?.interrupted).toBe(true);
    expect(delivered.length).toBeGreaterThan(20);
    expect(LONG_GREETING.startsWith(delivered)).toBe(true);
    expect(heard.startsWith(delivered)).toBe(true);
    // At most the word being spoken is missing.
    expect(heard.slice(delivered.length).trim()).not.toContain(' ');
    expect(conversation.transcript().split('\n').slice(1)).toEqual([
      'human: stop please now',
      'bot: Sorry, go ahead.',
    ]);
  });

  it('fades out over interruption_fade_out frames', async () => {
    const call = await runScriptedCall({
      agent: { greeting_message: LONG_GREETING },
      settings: { greetingInterruptible: true, minWordsToInterrupt: 1, fadeOutFrames: 3 },
      script: [
        { waitForAgentAudio: true },
        { wait: 1_000 },
        { say: 'wait a moment' },
        { wait: 3_000 },
        { hangup: true },
      ],
    });
    const decidedAt = call.startedAt + (greetingTurn(call)?.interrupted_at ?? NaN);
    const after = call.leg.played.filter((p) => p.at > decidedAt && p.at < decidedAt + 1_000);
    expect(after).toHaveLength(3);
    const peak = (i: number) => Math.max(...(after[i]?.frame.samples ?? [0]).map(Math.abs));
    expect(peak(0)).toBeGreaterThan(peak(1));
    expect(peak(1)).toBeGreaterThan(peak(2));
    expect(call.leg.clears).toEqual([{ at: decidedAt, fadeFrames: 3 }]);
  });

  it('speech shorter than min_words_to_interrupt is a backchannel: no cut, no turn', async () => {
    const { result, leg, conversation } = await runScriptedCall({
      agent: { greeting_message: LONG_GREETING },
      settings: { greetingInterruptible: true, minWordsToInterrupt: 3 },
      script: [
        { waitForAgentAudio: true },
        { wait: 1_000 },
        { say: 'yeah okay' },
        { waitForAgentSilence: 500 },
        { hangup: true },
      ],
    });
    expect(result.quality.interruptions).toBe(0);
    expect(leg.clears).toEqual([]);
    expect(leg.heardText()).toBe(LONG_GREETING);
    expect(conversation.transcript()).toBe(`bot: ${LONG_GREETING}`);
  });

  it('enough words interrupt even when they come only in the final (no STT partials)', async () => {
    const call = await runScriptedCall({
      agent: { greeting_message: LONG_GREETING },
      settings: { greetingInterruptible: true, minWordsToInterrupt: 2, patience: 'medium' },
      stt: { partials: false },
      script: [
        { waitForAgentAudio: true },
        { wait: 500 },
        { say: 'hold on please' },
        { wait: 3_000 },
        { hangup: true },
      ],
    });
    // 29 frames of data speech; the first is captured in the 20 ms before it is said (delivered).
    const saidAt = call.leg.saidAt[0]?.at ?? 0;
    const speechEnd = saidAt - 20 + 29 * 20;
    const decidedAt = call.startedAt + (greetingTurn(call)?.interrupted_at ?? NaN);
    expect(call.result.quality.interruptions).toBe(1);
    // Flushed at the speech end, the final reads as a finished line: half the medium wait.
    expect(decidedAt - speechEnd).toBeGreaterThanOrEqual(400);
    expect(decidedAt - speechEnd).toBeLessThanOrEqual(440);
  });

  it('with "0", VAD speech of 300 ms interrupts; a shorter sound does not', async () => {
    const call = await runScriptedCall({
      agent: { greeting_message: LONG_GREETING },
      settings: { greetingInterruptible: true, minWordsToInterrupt: 0 },
      script: [
        { waitForAgentAudio: true },
        { wait: 500 },
        { say: 'hm' },
        { wait: 1_000 },
        { say: 'wait a second' },
        { wait: 3_000 },
        { hangup: true },
      ],
    });
    const [hm, wait] = call.leg.saidAt;
    const decidedAt = call.startedAt + (greetingTurn(call)?.interrupted_at ?? NaN);
    expect(call.result.quality.interruptions).toBe(1);
    expect(decidedAt).toBeGreaterThan((hm?.at ?? 0) + 500);
    // Speech starts with the frame captured in the 20 ms before the far end's step ran.
    const speechStart = (wait?.at ?? 0) - 20;
    expect(decidedAt - speechStart).toBeGreaterThanOrEqual(300);
    expect(decidedAt - speechStart).toBeLessThanOrEqual(340);
    expect(call.conversation.transcript()).not.toContain('human: hm');
    expect(call.conversation.transcript()).toContain('human: wait a second');
  });
});
