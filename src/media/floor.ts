import type { MediaLeg, MediaReceiver } from './leg.ts';

// A leg the agent shares with a transfer. The agent (the voice session) talks on `agent`; a
// transfer takes the line from it: while it holds the line the agent's audio goes nowhere, the far
// end's audio and keys go to the holder, and the agent's played position stands still (hold music
// or a bridged person is not the agent's speech). Given back, the agent goes on where it was. Once
// the call is bridged to a person, the agent's hang-up waits for the bridge to end: the call goes
// on without the agent.

export interface LegFloor {
  /** The leg the agent talks on. */
  readonly agent: MediaLeg;
  /** The carrier's leg (for the holder to play into and read). */
  readonly line: MediaLeg;
  /** Takes the line: the far end's audio and keys now go to `receiver` (again: changes it). */
  take(receiver: MediaReceiver): void;
  /** Gives the line back to the agent; what the holder queued is dropped. */
  giveBack(): void;
  /** The agent's hang-up waits for `until` first (a bridged call goes on). */
  keepOpen(until: Promise<unknown>): void;
  readonly held: boolean;
}

export function createLegFloor(line: MediaLeg): LegFloor {
  let agentReceiver: MediaReceiver | null = null;
  let holder: MediaReceiver | null = null;
  let listening = false;
  /** Played while held, not by the agent. */
  let heldMs = 0;
  let takenAt = 0;
  let keep: Promise<unknown> | null = null;

  const listen = () => {
    if (listening) return;
    listening = true;
    line.receive({
      audio: (frame) => (holder ?? agentReceiver)?.audio(frame),
      dtmf: (digit, at) => (holder ?? agentReceiver)?.dtmf(digit, at),
    });
  };

  const agent: MediaLeg = {
    get sid() {
      return line.sid;
    },
    get ended() {
      return line.ended;
    },
    receive(receiver) {
      agentReceiver = receiver;
      listen();
    },
    play(frame) {
      if (!holder) line.play(frame);
    },
    clear(fadeFrames) {
      if (!holder) line.clear(fadeFrames);
    },
    get playedMs() {
      return (holder ? takenAt : line.playedMs) - heldMs;
    },
    get queuedMs() {
      return holder ? 0 : line.queuedMs;
    },
    drained: () => (holder ? Promise.resolve() : line.drained()),
    sendDtmf: (digits) => line.sendDtmf(digits),
    transfer: (to) => line.transfer(to),
    async hangup() {
      if (keep) await keep.catch(() => undefined);
      await line.hangup();
    },
    ...(line.linkStats ? { linkStats: line.linkStats.bind(line) } : {}),
    ...(line.onAnsweredBy ? { onAnsweredBy: line.onAnsweredBy.bind(line) } : {}),
  };

  return {
    agent,
    line,
    get held() {
      return holder !== null;
    },
    take(receiver) {
      if (!holder) takenAt = line.playedMs;
      holder = receiver;
      listen();
    },
    giveBack() {
      if (!holder) return;
      line.clear(0);
      heldMs += line.playedMs - takenAt;
      holder = null;
    },
    keepOpen(until) {
      keep = until;
    },
  };
}
