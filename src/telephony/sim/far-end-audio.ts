import { SESSION_RATE, samplesPerFrame, type AudioFrame } from '../../media/index.ts';
import type { RemoteAudioEnd } from './audio-leg.ts';
import { HANG_UP_PAUSE_MS, MACHINE_MESSAGE_MS, THINK_MS, type SimTimer } from './timing.ts';
import type { Callee, FarEndVoice } from './types.ts';

// The far end of an audio-mode sim call: the same person or answering machine as in text mode,
// but it speaks through a voice (its words synthesized into frames, sent at the pace of speech)
// and hears through ears (our frames recognized back into lines). Nothing is passed as text
// between the two sides, so a sim call exercises the whole voice path.

/** Speaks `text` into the leg and waits until the far end has finished saying it. */
async function say(remote: RemoteAudioEnd, voice: FarEndVoice, text: string): Promise<void> {
  remote.log({ from: 'remote', text });
  for await (const frame of voice.speak(text, remote.signal)) {
    if (remote.signal.aborted) return;
    remote.send(frame);
  }
  await remote.delivered();
}

/**
 * A person: says its opening (if any), then answers each line it hears, after a pause to think.
 * A turn with `hangUp` ends the leg `remote_hangup` a moment after its words have been heard.
 */
export function runPersonAudio(
  remote: RemoteAudioEnd,
  callee: Callee,
  voice: FarEndVoice,
  timer: SimTimer,
): void {
  const { signal } = remote;
  let chain = step(async () => {
    const opening = await callee.opening();
    if (opening !== '') await say(remote, voice, opening);
  });
  const ears = voice.listen((agentSaid) => {
    remote.log({ from: 'local', text: agentSaid });
    chain = chain.then(() =>
      step(async () => {
        await timer.wait(THINK_MS, signal);
        const turn = await callee.reply(agentSaid, signal);
        if (signal.aborted) return;
        if (turn.text !== '') await say(remote, voice, turn.text);
        if (!turn.hangUp) return;
        if (turn.text !== '') await timer.wait(HANG_UP_PAUSE_MS, signal);
        remote.end('remote_hangup');
      }),
    );
  }, signal);
  remote.onAudio((frame, sent) => ears.push(frame, sent));

  async function step(work: () => Promise<void>): Promise<void> {
    if (signal.aborted) return;
    try {
      await work();
    } catch (err) {
      if (!signal.aborted) remote.end('carrier_failure', err);
    }
  }
}

/** A beep as answering machines play it: 1 kHz for half a second. */
export function beepFrames(): AudioFrame[] {
  const n = samplesPerFrame(SESSION_RATE);
  const frames: AudioFrame[] = [];
  for (let f = 0; f < 25; f += 1) {
    const samples = new Int16Array(n);
    for (let i = 0; i < n; i += 1) {
      samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 1000 * (f * n + i)) / SESSION_RATE));
    }
    frames.push({ samples, sampleRate: SESSION_RATE, at: 0 });
  }
  return frames;
}

/**
 * An answering machine: plays its greeting, then a real beep, then records (what it hears goes
 * to the leg's log) until we hang up or `MACHINE_MESSAGE_MS` has passed.
 */
export function runMachineAudio(
  remote: RemoteAudioEnd,
  greeting: string,
  voice: FarEndVoice,
  timer: SimTimer,
): void {
  const { signal } = remote;
  const ears = voice.listen((heard) => remote.log({ from: 'local', text: heard }), signal);
  remote.onAudio((frame, sent) => ears.push(frame, sent));
  void (async () => {
    await say(remote, voice, greeting);
    remote.log({ from: 'remote', text: '[beep]' });
    for (const frame of beepFrames()) remote.send(frame);
    await remote.delivered();
    // At speed 0 a zero-length recording window leaves no room for a message: record until hang-up.
    if (timer.speed === 0) return;
    await timer.wait(MACHINE_MESSAGE_MS, signal);
    remote.end('remote_hangup');
  })().catch((err: unknown) => {
    if (!signal.aborted) remote.end('carrier_failure', err);
  });
}
