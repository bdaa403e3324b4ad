import { describe, expect, it } from 'vitest';
import { runScriptedCall } from './testing/index.ts';

// Voicemail, decided from the audio: a long greeting, a mailbox's words, or a beep. With a
// message the agent waits for the beep (or the greeting's end) and leaves it; without one it
// hangs up at once.

const MACHINE_GREETING =
  "Hi, you've reached John. I can't take your call right now. Please leave a message after the tone.";
const MESSAGE = 'Hi John, this is Parley about your order. Please call us back.';

describe('voicemail', () => {
  it("takes the carrier's machine verdict (Twilio's AnsweredBy) while screening", async () => {
    const call = await runScriptedCall({
      settings: { greetingMode: 'human', voicemailMessage: null },
      carrierAnsweredBy: { who: 'machine', atMs: 400 },
      script: [{ wait: 300 }, { say: 'Hello' }, { wait: 30_000 }],
    });
    expect(call.result).toMatchObject({ status: 'hangup_on_voicemail', answeredBy: 'machine' });
    expect(call.leg.played).toEqual([]);
  });

  it("a carrier's human verdict changes nothing: the call goes on as a person's", async () => {
    const call = await runScriptedCall({
      settings: { greetingMode: 'human', voicemailMessage: null },
      carrierAnsweredBy: { who: 'human', atMs: 400 },
      script: [{ wait: 300 }, { say: 'Hello' }, { wait: 3_000 }],
    });
    expect(call.result.answeredBy).toBe('human');
    expect(call.leg.heardText()).toBe('Okay.');
  });

  it('leaves the message after the beep', async () => {
    const call = await runScriptedCall({
      settings: { greetingMode: 'human', voicemailMessage: MESSAGE },
      script: [
        { wait: 300 },
        { say: MACHINE_GREETING },
        { wait: 500 },
        { tone: { hz: 1000, ms: 400 } },
        { wait: 30_000 },
      ],
    });
    const { result, leg, conversation, startedAt } = call;
    expect(result).toMatchObject({
      status: 'left_voicemail',
      endCallReason: 'voicemail_message_left',
      answeredBy: 'machine',
    });
    expect(leg.heardText()).toBe(MESSAGE);
    const beepEnd = (leg.saidAt[0]?.at ?? 0) - startedAt + (2 * MACHINE_GREETING.length + 1) * 20 + 500 + 400;
    const message = result.quality.per_turn.find((t) => t.kind === 'voicemail');
    expect(message?.first_frame_out_at).toBeGreaterThanOrEqual(beepEnd);
    expect(message?.first_frame_out_at).toBeLessThanOrEqual(beepEnd + 60);
    expect(conversation.transcript().split('\n')).toEqual([`human: ${MACHINE_GREETING}`, `bot: ${MESSAGE}`]);
    expect(leg.endReason).toBe('local_hangup');
    expect(call.clock.pendingSleeps).toBe(0);
  });

  it('hangs up on a machine when no message is set', async () => {
    const call = await runScriptedCall({
      settings: { greetingMode: 'human', voicemailMessage: null },
      script: [
        { wait: 300 },
        { say: MACHINE_GREETING },
        { wait: 500 },
        { tone: { hz: 1000, ms: 400 } },
        { wait: 30_000 },
      ],
    });
    expect(call.result).toMatchObject({
      status: 'hangup_on_voicemail',
      endCallReason: 'voicemail',
      answeredBy: 'machine',
    });
    expect(call.leg.played).toEqual([]);
    // Decided on the words ("can't take your call"), well before the greeting ends.
    expect(call.result.quality.duration_ms).toBeLessThan(2_500);
    expect(call.conversation.transcript()).toMatch(
      /^human: Hi, you've reached John\. I can't take your call/,
    );
  });

  it('a greeting that runs on with no pause is a machine, whatever it says', async () => {
    const greeting =
      'Hello and welcome to the Smith family residence where we are so glad you called us today and hope you are well';
    const call = await runScriptedCall({
      settings: { greetingMode: 'human', voicemailMessage: null, patience: 'medium' },
      script: [{ wait: 200 }, { say: greeting }, { wait: 10_000 }],
    });
    expect(call.result).toMatchObject({ status: 'hangup_on_voicemail', answeredBy: 'machine' });
    const startedSpeaking = (call.leg.saidAt[0]?.at ?? 0) - call.startedAt - 20;
    expect(call.result.quality.duration_ms - startedSpeaking).toBeGreaterThanOrEqual(4_000);
    expect(call.result.quality.duration_ms - startedSpeaking).toBeLessThanOrEqual(4_100);
  });

  it('a beep alone is enough', async () => {
    const call = await runScriptedCall({
      settings: { greetingMode: 'human', voicemailMessage: MESSAGE },
      script: [
        { wait: 200 },
        { say: "Hi it's Sam" },
        { wait: 300 },
        { tone: { hz: 850, ms: 300 } },
        { wait: 30_000 },
      ],
    });
    expect(call.result).toMatchObject({ status: 'left_voicemail', answeredBy: 'machine' });
    expect(call.leg.heardText()).toBe(MESSAGE);
  });

  it('a person who says hello is answered as a person', async () => {
    const call = await runScriptedCall({
      settings: { greetingMode: 'human', voicemailMessage: MESSAGE },
      script: [{ wait: 300 }, { say: 'Hello?' }, { waitForAgentSilence: 300 }, { hangup: true }],
      replies: [{ text: 'Hi, this is Parley.' }],
    });
    expect(call.result).toMatchObject({ status: 'completed', answeredBy: 'human' });
    expect(call.leg.heardText()).toBe('Hi, this is Parley.');
  });

  it('detects a machine at answer on an outbound call that greets first', async () => {
    const call = await runScriptedCall({
      detectVoicemail: true,
      settings: { greetingMode: 'agent_static', voicemailMessage: null },
      script: [{ say: MACHINE_GREETING }, { wait: 30_000 }],
    });
    expect(call.result).toMatchObject({ status: 'hangup_on_voicemail', answeredBy: 'machine' });
    // The agent's greeting was cut off when the machine was recognized.
    expect(call.conversation.turns[0]?.speaker).toBe('agent');
    expect(call.result.quality.duration_ms).toBeLessThan(3_000);
  });
});
