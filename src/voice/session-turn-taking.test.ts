import { describe, expect, it } from 'vitest';
import { createScriptedLLM } from '../providers/testing/index.ts';
import { runScriptedCall } from './testing/index.ts';

// Turn-taking on the phone (docs/voice.md, "Turn-taking"): the greeting is not cut off by the
// callee's hello at pick-up (or anything else, by default: greeting_interruptible), what the
// callee says over it is heard and answered after it; back-channel words while the agent talks
// neither interrupt nor make a turn; real words do.

const GREETING = 'Hello, this is Sam from Sunny Solar. I am calling about the quote you asked for last week.';

describe('turn-taking', () => {
  it("plays the whole greeting over the callee's hello at pick-up, keeps the hello, and does not answer it", async () => {
    const { result, leg, conversation } = await runScriptedCall({
      agent: { greeting_message: GREETING },
      script: [
        { waitForAgentAudio: true },
        { wait: 300 },
        { say: 'Hello?' },
        { waitForAgentSilence: 600 },
        { hangup: true },
      ],
      replies: [{ text: 'Should not be said.' }],
    });
    expect(result.quality.interruptions).toBe(0);
    expect(leg.clears).toEqual([]);
    expect(leg.heardText()).toBe(GREETING);
    // Said, so the transcript has it; not a turn, so no answer.
    expect(conversation.transcript()).toBe(`bot: ${GREETING}\nhuman: Hello?`);
  });

  it("keeps the pick-up hello from the model: its next answer is to the callee's real words", async () => {
    const llm = createScriptedLLM([{ text: 'Great, thanks.' }]);
    const { conversation } = await runScriptedCall({
      agent: { greeting_message: GREETING },
      script: [
        { waitForAgentAudio: true },
        { wait: 300 },
        { say: 'Hello?' },
        { waitForAgentSilence: 600 },
        { say: 'Yes I remember' },
        { waitForAgentSilence: 600 },
        { hangup: true },
      ],
      replies: llm,
    });
    expect(conversation.transcript().split('\n')).toEqual([
      `bot: ${GREETING}`,
      'human: Hello?',
      'human: Yes I remember',
      'bot: Great, thanks.',
    ]);
    const said = llm.requests[0]?.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(said).toEqual(['Yes I remember']);
  });

  it('hears what the callee says over the greeting and answers it once the greeting has played', async () => {
    const { result, leg, conversation } = await runScriptedCall({
      agent: { greeting_message: GREETING },
      script: [
        { waitForAgentAudio: true },
        { wait: 500 },
        { say: 'Sorry who is calling?' },
        { waitForAgentSilence: 600 },
        { hangup: true },
      ],
      replies: [{ text: 'This is Sam, from Sunny Solar.' }],
    });
    expect(result.quality.interruptions).toBe(0);
    expect(leg.heardText()).toBe(`${GREETING} This is Sam, from Sunny Solar.`);
    expect(conversation.transcript().split('\n')).toEqual([
      `bot: ${GREETING}`,
      'human: Sorry who is calling?',
      'bot: This is Sam, from Sunny Solar.',
    ]);
  });

  it('lets the greeting be cut off when greeting_interruptible is set', async () => {
    const { result, conversation } = await runScriptedCall({
      agent: { greeting_message: GREETING },
      settings: { greetingInterruptible: true },
      script: [
        { waitForAgentAudio: true },
        { wait: 500 },
        { say: 'Sorry who is calling?' },
        { waitForAgentSilence: 600 },
        { hangup: true },
      ],
      replies: [{ text: 'This is Sam.' }],
    });
    expect(result.quality.interruptions).toBe(1);
    expect(conversation.turns[0]?.interrupted).toBe(true);
  });

  it('keeps talking over back-channel words, which make no turn; real words interrupt', async () => {
    const LONG =
      'Our panels come with a twenty five year warranty. Installation takes one day. The price includes the permit.';
    const { result, conversation } = await runScriptedCall({
      agent: { greeting_message: 'Hi there.' },
      script: [
        { waitForAgentSilence: 300 },
        { say: 'Tell me about the panels' },
        { waitForAgentAudio: true },
        { wait: 300 },
        { say: 'mhm yeah' },
        { wait: 1_000 },
        { say: 'okay right' },
        { wait: 1_000 },
        { say: 'wait how much' },
        { waitForAgentSilence: 600 },
        { hangup: true },
      ],
      replies: [{ text: LONG }, { text: 'It is eight thousand dollars.' }],
    });
    expect(result.quality.interruptions).toBe(1);
    const lines = conversation.transcript().split('\n');
    expect(lines.filter((l) => l.startsWith('human:'))).toEqual([
      'human: Tell me about the panels',
      'human: wait how much',
    ]);
    expect(lines.at(-1)).toBe('bot: It is eight thousand dollars.');
    // The answer to the panels was cut where "wait" came, not at a back-channel.
    expect(conversation.turns.find((t) => t.interrupted)?.text.length).toBeGreaterThan(40);
  });
  describe('without partials, a caller who goes on just after the reply started', () => {
    const REPLY =
      'Of course, I can help you reschedule. Let me look at the calendar for the next available days.';

    it('stops the reply once voiced for 300 ms, not at the final, and waits longer on this caller', async () => {
      const { result, conversation, leg, startedAt } = await runScriptedCall({
        stt: { partials: false },
        settings: { patience: 'medium' },
        script: [
          { waitForAgentSilence: 300 },
          { say: 'I need to reschedule' },
          // A 700 ms pause: the 400 ms wait after a finished-looking line has ended inside it.
          { wait: 700 },
          { say: 'my delivery for next week please' },
          { waitForAgentSilence: 600 },
          { say: 'Tuesday works' },
          { waitForAgentSilence: 600 },
          { hangup: true },
        ],
        replies: [{ text: REPLY }, { text: 'Which day works for you?' }, { text: 'Tuesday it is.' }],
      });
      const [first, second, third] = result.quality.per_turn.filter((t) => t.kind === 'reply');
      if (!first || !second || !third) throw new Error('three reply turns expected');
      // Before the cut a finished-looking line waited half the patience delay; after it, this
      // caller's lines wait the whole of it (they pause mid-line).
      expect([first.endpointing_ms, second.endpointing_ms, third.endpointing_ms]).toEqual([400, 800, 800]);
      const audibleAt = startedAt + (first.first_frame_out_at ?? NaN);
      const resumedAt = leg.saidAt[1]?.at ?? NaN;
      // The caller went on within CALLER_GOES_ON_MS of the reply becoming audible...
      expect(resumedAt - audibleAt).toBeGreaterThan(0);
      expect(resumedAt - audibleAt).toBeLessThanOrEqual(600);
      // ...and was talked over for BARGE_IN_MIN_SPEECH_MS from the VAD's speech start (its first
      // frame's start, a frame before the harness logs the line), not until the final.
      const stoppedAt = startedAt + (first.interrupted_at ?? NaN);
      expect(stoppedAt - resumedAt).toBeGreaterThanOrEqual(280);
      expect(stoppedAt - resumedAt).toBeLessThanOrEqual(340);
      expect(result.quality.interruptions).toBe(1);
      const lines = conversation.transcript().split('\n');
      expect(lines.filter((l) => l.startsWith('human:'))).toEqual([
        'human: I need to reschedule',
        'human: my delivery for next week please',
        'human: Tuesday works',
      ]);
      const cut = conversation.turns.find((t) => t.interrupted)?.text ?? '';
      expect(cut.length).toBeGreaterThan(0);
      expect(REPLY.startsWith(cut)).toBe(true);
      expect(cut.length).toBeLessThan(REPLY.length);
      expect(lines.slice(-3)).toEqual([
        'bot: Which day works for you?',
        'human: Tuesday works',
        'bot: Tuesday it is.',
      ]);
    });

    it('keeps talking over a back-channel said later in the reply', async () => {
      const { result, conversation } = await runScriptedCall({
        stt: { partials: false },
        settings: { patience: 'medium' },
        script: [
          { waitForAgentSilence: 300 },
          { say: 'I need to reschedule' },
          { waitForAgentAudio: true },
          { wait: 1_000 },
          { say: 'mhm' },
          { waitForAgentSilence: 600 },
          { say: 'Tuesday works' },
          { waitForAgentSilence: 600 },
          { hangup: true },
        ],
        replies: [{ text: REPLY }, { text: 'Tuesday it is.' }],
      });
      expect(result.quality.interruptions).toBe(0);
      expect(conversation.transcript().split('\n').slice(1)).toEqual([
        'human: I need to reschedule',
        `bot: ${REPLY}`,
        'human: Tuesday works',
        'bot: Tuesday it is.',
      ]);
      // Not cut off: a finished line still waits half the patience delay.
      const replies = result.quality.per_turn.filter((t) => t.kind === 'reply');
      expect(replies.map((t) => t.endpointing_ms)).toEqual([400, 400]);
    });
  });
});
