import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { ConversationSession } from '../conversation/index.ts';
import { createScriptedLLM } from '../providers/testing/index.ts';
import { talk } from './talk.ts';
import { createFakeLeg } from './testing/index.ts';

// `talk` on a server without speech: an audio leg cannot be heard, so the call fails at once with
// the reason the server gave, and the leg is hung up (no call left open on the carrier).

describe('talk without speech', () => {
  it('fails an audio call with the reason, and hangs up', async () => {
    const clock = createManualClock();
    const leg = createFakeLeg({ clock, script: [] });
    const conversation = new ConversationSession({
      agent: { prompt: 'p', greeting_message: 'Hello.' },
      llm: createScriptedLLM([{ text: 'OK.' }], { clock, repeatLast: true }),
      style: 'voice',
      clock,
    });
    const result = await talk({
      leg,
      conversation,
      agent: {},
      speech: null,
      speechMissing: 'PocketSphinx is not installed',
      clock,
      detectVoicemail: false,
    });
    expect(result).toMatchObject({
      status: 'failed',
      endCallReason: 'undefined',
      errorMessage: 'this server cannot run voice calls: PocketSphinx is not installed',
    });
    expect(leg.endReason).toBe('local_hangup');
    expect(conversation.transcript()).toBe('');
  });
});
