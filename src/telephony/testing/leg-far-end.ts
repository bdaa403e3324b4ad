import type { Callee, FarEndVoice } from '../sim/index.ts';
import type { CallLeg } from '../types.ts';

// A scripted person on the far end of a real call: a carrier under test dials a second carrier of
// the same kind, whose incoming call is answered with this. The person speaks into that leg with
// the voice and hears through it, so every word crosses the carriers' real transport both ways.

export function talkAsCallee(leg: CallLeg, callee: Callee, voice: FarEndVoice): void {
  const stop = new AbortController();
  void leg.ended.then(() => stop.abort());
  const say = async (text: string) => {
    if (text === '') return;
    for await (const frame of voice.speak(text, stop.signal)) {
      if (stop.signal.aborted) return;
      leg.play(frame);
    }
    await leg.drained();
  };
  let chain: Promise<void> = callee.opening().then(say);
  const ear = voice.listen((heard) => {
    chain = chain
      .then(async () => {
        const turn = await callee.reply(heard, stop.signal);
        await say(turn.text);
        if (turn.hangUp) await leg.hangup();
      })
      .catch(() => undefined);
  }, stop.signal);
  leg.receive({ audio: (frame) => ear.push(frame), dtmf: () => undefined });
}
