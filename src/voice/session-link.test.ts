import { describe, expect, it } from 'vitest';
import type { LinkStats } from '../media/index.ts';
import { runScriptedCall, type FarEndStep } from './testing/index.ts';

// The call's quality carries what the leg's transport counted (loss, jitter, frames), read when
// the call ends; a leg that counts nothing leaves loss and jitter null.

const SCRIPT: FarEndStep[] = [
  { waitForAgentSilence: 300 },
  { say: 'Hello there' },
  { waitForAgentSilence: 300 },
  { hangup: true },
];

describe('link statistics in the quality', () => {
  it("are the leg's, read once the call has ended", async () => {
    /** The leg's end reason at each read: the quality is measured after the hang-up. */
    const readsAfter: (string | null)[] = [];
    const stats = (): LinkStats => {
      return {
        framesIn: 400,
        framesLost: 8,
        framesLate: 2,
        framesReordered: 3,
        framesRefused: 1,
        framesOut: 150,
        packetLoss: 8 / 406,
        jitterMs: 4.26,
      };
    };
    const { result, leg } = await runScriptedCall({
      script: SCRIPT,
      // The fake leg reports link statistics from the first beat on.
      onBeat: (_elapsed, fake) => {
        fake.linkStats ??= () => {
          readsAfter.push(fake.endReason);
          return stats();
        };
      },
    });
    expect(leg.endReason).not.toBeNull();
    expect(readsAfter).toEqual([leg.endReason]);
    expect(result.quality).toMatchObject({
      packet_loss: 0.0197,
      jitter_ms: 4.3,
      link: {
        frames_in: 400,
        frames_lost: 8,
        frames_late: 2,
        frames_reordered: 3,
        frames_refused: 1,
        frames_out: 150,
      },
    });
  });

  it('are null (and no link counts) on a leg that reports none', async () => {
    const { result } = await runScriptedCall({ script: SCRIPT });
    expect(result.quality.packet_loss).toBeNull();
    expect(result.quality.jitter_ms).toBeNull();
    expect(result.quality).not.toHaveProperty('link');
  });
});
