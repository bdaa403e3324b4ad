import type { RemoteEnd } from './text-leg.ts';
import type { Callee } from './types.ts';
import { MACHINE_MESSAGE_MS, THINK_MS, speakingMs, type SimTimer } from './timing.ts';

// What sits at the far end of an answered `sim` call: a person (a `Callee`) or an answering
// machine. Each runs on the leg's `RemoteEnd`, with every wait on the carrier's timer, and stops
// when the leg ends (the remote signal aborts its waits and any reply in flight).

/** The machine's greeting for a `3333` number (in text mode the line ends with a literal `[beep]`). */
export function voicemailGreeting(name?: string): string {
  const who = name?.trim() ? name.trim() : 'this number';
  return `Hi, you've reached ${who}. I can't take your call right now, please leave a message after the tone.`;
}

/**
 * A person: says its opening (if any), then answers each line it hears, in order. A reply comes
 * after the time to hear the agent's line, a pause to think, and the time to say the reply
 * (see timing.ts). A turn with `hangUp` ends the leg `remote_hangup` once its text is delivered.
 */
export function runPerson(remote: RemoteEnd, callee: Callee, timer: SimTimer): void {
  const { signal } = remote;
  // One chain, so the opening comes first and replies keep the order of what the agent said.
  let chain = step(async () => {
    const opening = await callee.opening();
    if (opening === '') return;
    await timer.wait(speakingMs(opening), signal);
    remote.say(opening);
  });
  remote.onHeard((agentSaid) => {
    chain = chain.then(() =>
      step(async () => {
        await timer.wait(speakingMs(agentSaid) + THINK_MS, signal);
        const turn = await callee.reply(agentSaid, signal);
        if (signal.aborted) return;
        if (turn.text !== '') {
          await timer.wait(speakingMs(turn.text), signal);
          remote.say(turn.text);
        }
        if (turn.hangUp) remote.end('remote_hangup');
      }),
    );
  });

  async function step(work: () => Promise<void>): Promise<void> {
    if (signal.aborted) return;
    try {
      await work();
    } catch (err) {
      // After the end, failures are just the abort of work in flight. Before it, the simulated
      // person broke: the line drops rather than hanging silently forever.
      if (!signal.aborted) remote.end('carrier_failure', err);
    }
  }
}

/**
 * An answering machine: plays its greeting ending in `[beep]`, then records silently (what the
 * agent says is in the leg's log) until we hang up or `MACHINE_MESSAGE_MS` has passed (never by
 * itself at speed 0).
 */
export function runMachine(remote: RemoteEnd, greeting: string, timer: SimTimer): void {
  const { signal } = remote;
  void (async () => {
    await timer.wait(speakingMs(greeting), signal);
    remote.say(greeting);
    // At speed 0 a zero-length recording window would leave no room for a message at all, so
    // there the machine records until we hang up.
    if (timer.speed === 0) return;
    await timer.wait(MACHINE_MESSAGE_MS, signal);
    remote.end('remote_hangup');
  })().catch(() => {
    // Only an abort can get here: the leg ended first.
  });
}
