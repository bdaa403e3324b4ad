import { describe, expect, it } from 'vitest';
import type { ConversationSession, TranscriptTurn } from '../conversation/index.ts';
import { runScriptedCall, type FakeLeg } from './testing/index.ts';

// `onTurnsSettled` (what calls keeps durable during the call, docs/durability.md): it comes once
// the agent's line has played out or been cut, so the transcript it sees never changes after:
// every snapshot taken then is a prefix of the final transcript, the greeting's only once heard.

const GREETING = 'Hello, this is Parley calling about your solar panel appointment next week.';

interface Snapshot {
  turns: TranscriptTurn[];
  queuedMs: number;
}

function recorder() {
  const snapshots: Snapshot[] = [];
  const onTurnsSettled = (conversation: ConversationSession, leg: FakeLeg) =>
    snapshots.push({
      turns: structuredClone([...conversation.turns]),
      queuedMs: leg.queuedMs,
    });
  return { snapshots, onTurnsSettled };
}

const isPrefix = (snapshot: readonly TranscriptTurn[], final: readonly TranscriptTurn[]) =>
  snapshot.every((turn, i) => JSON.stringify(turn) === JSON.stringify(final[i]));

describe('turns settled', () => {
  it('comes after each of the agent’s lines has played out, with a transcript that stays as it is', async () => {
    const { snapshots, onTurnsSettled } = recorder();
    const { conversation } = await runScriptedCall({
      agent: { greeting_message: GREETING },
      script: [
        { waitForAgentSilence: 300 },
        { say: 'yes I remember' },
        { waitForAgentSilence: 300 },
        { hangup: true },
      ],
      replies: [{ text: 'Great, see you then.' }],
      onTurnsSettled,
    });
    const final = conversation.turns;
    expect(final.map((t) => t.text)).toEqual([GREETING, 'yes I remember', 'Great, see you then.']);
    expect(snapshots.length).toBeGreaterThanOrEqual(2);
    // The greeting, whole, once nothing of it was left to play; then the exchange, likewise.
    expect(snapshots[0]!.turns.map((t) => t.text)).toEqual([GREETING]);
    expect(snapshots[0]!.queuedMs).toBe(0);
    expect(snapshots.some((s) => s.turns.length === 3 && s.queuedMs === 0)).toBe(true);
    for (const s of snapshots) expect(isPrefix(s.turns, final)).toBe(true);
  });

  it('after a barge-in, has the agent’s line cut to what was heard', async () => {
    const { snapshots, onTurnsSettled } = recorder();
    const { conversation } = await runScriptedCall({
      agent: { greeting_message: GREETING },
      settings: { greetingInterruptible: true, minWordsToInterrupt: 2, fadeOutFrames: 0 },
      script: [
        { waitForAgentAudio: true },
        { wait: 1_500 },
        { say: 'stop please now' },
        { waitForAgentSilence: 300 },
        { hangup: true },
      ],
      replies: [{ text: 'Sorry, go ahead.' }],
      onTurnsSettled,
    });
    const final = conversation.turns;
    expect(final[0]?.interrupted).toBe(true);
    expect(GREETING.startsWith(final[0]!.text)).toBe(true);
    expect(final[0]!.text.length).toBeLessThan(GREETING.length);
    // Never the whole greeting: the first snapshot already has the cut one.
    expect(snapshots[0]!.turns).toEqual([final[0]]);
    for (const s of snapshots) expect(isPrefix(s.turns, final)).toBe(true);
  });
});
