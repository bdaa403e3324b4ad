import { SESSION_RATE, samplesPerFrame, type AudioFrame, type MediaReceiver } from '../../media/index.ts';
import { FrameRing, sendBeat, type FramePacer, type FrameTick, type FrameTicker } from '../pacing/index.ts';
import type { CallLeg, LegEndReason } from '../types.ts';
import type { WsMediaEdge } from './edge.ts';
import { WS_CLOSE, type WsMediaSocket } from './socket.ts';

// The leg of a WebSocket media call. On each 20 ms beat of the carrier it hands our receiver the
// client's next 20 ms (from the edge's jitter buffer or queue; silence when none came) and sends
// the client our frame of the beat, encoded and framed by the edge. Silence is not sent: the
// next talkspurt starts with the RTP marker. The socket closing ends the leg; ending the leg
// tells the client (`call_ended`) and closes the socket. Its link statistics (for the call's
// quality) are the edge's counts, each message timed on the carrier's clock as it comes.

const SILENCE = new Int16Array(samplesPerFrame(SESSION_RATE));

export interface WsMediaLeg extends CallLeg {
  /** Sends a text message to the client (transcript lines, call_ended). */
  sendText(message: Record<string, unknown>): void;
}

export interface WsMediaLegOptions {
  sid: string;
  socket: WsMediaSocket;
  edge: WsMediaEdge;
  ticker: FrameTicker;
  pacer: FramePacer;
  now: () => number;
}

/** The leg, and where the carrier hands it what the socket brings once bound. */
export interface BoundWsMedia {
  leg: WsMediaLeg;
  /** A binary message from the client. */
  audio(data: Uint8Array): void;
  /** The socket is gone. */
  closed(): void;
}

export function createWsMediaLeg(options: WsMediaLegOptions): BoundWsMedia {
  const { socket, edge, ticker, pacer, now } = options;
  const outgoing = new FrameRing();
  let receiver: MediaReceiver | null = null;
  let endReason: LegEndReason | null = null;
  let talking = false;
  let resolveEnded: (reason: LegEndReason) => void = () => {};
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  // Reused for every beat the client sent nothing: receivers must not keep frames.
  const silence = { samples: SILENCE, sampleRate: SESSION_RATE, at: 0 } as {
    -readonly [K in keyof AudioFrame]: AudioFrame[K];
  };

  const beat: FrameTick = {
    send(at) {
      if (endReason) return;
      if (pacer.mode === 'caller') sendBeat(outgoing.view, at, now());
      outgoing.hear((sent) => {
        if (!sent.frame) {
          talking = false;
          return;
        }
        socket.send(edge.encode(sent.frame, !talking));
        talking = true;
      });
    },
    deliver(at) {
      if (endReason) return;
      const frame = edge.next(at);
      if (frame) receiver?.audio(frame);
      else {
        silence.at = at;
        receiver?.audio(silence);
      }
    },
  };
  ticker.add(beat);
  pacer.add(outgoing);

  function end(reason: LegEndReason) {
    if (endReason) return;
    endReason = reason;
    ticker.delete(beat);
    pacer.delete(outgoing);
    outgoing.close();
    edge.close();
    resolveEnded(reason);
  }

  const leg: WsMediaLeg = {
    sid: options.sid,
    ended,
    receive(next) {
      receiver = next;
    },
    play(frame) {
      if (!endReason) outgoing.play(frame);
    },
    clear(fadeFrames = 0) {
      outgoing.clear(fadeFrames);
    },
    get playedMs() {
      return outgoing.playedMs;
    },
    get queuedMs() {
      return outgoing.queuedMs;
    },
    drained() {
      return endReason ? Promise.resolve() : outgoing.whenIdle();
    },
    async sendDtmf() {
      // No key events travel to the client over WS media (WIRE.md section 10 names none).
    },
    async transfer() {
      throw new Error('a WebSocket media call cannot be transferred');
    },
    async hangup() {
      if (endReason) return;
      leg.sendText({ type: 'call_ended', reason: 'hangup' });
      end('local_hangup');
      socket.close(WS_CLOSE.normal, 'call ended');
    },
    sendText(message) {
      if (!endReason) socket.send(JSON.stringify(message));
    },
    showTranscript(line) {
      leg.sendText({ type: 'transcript', role: line.role, text: line.text });
    },
    linkStats: () => edge.linkStats(),
  };
  return {
    leg,
    audio(data) {
      if (!endReason) edge.accept(data, now());
    },
    closed() {
      end('remote_hangup');
    },
  };
}
