import { FRAME_MS, samplesPerFrame, type AudioFrame, type MediaReceiver } from '../../media/index.ts';
import { FrameRing, sendBeat, type FramePacer, type FrameTick, type FrameTicker } from '../pacing/index.ts';
import type { CallLeg, LegEndReason } from '../types.ts';
import type { WsMediaEdge } from './edge.ts';
import { WS_CLOSE, type WsMediaSocket } from './socket.ts';

// The leg of a WebSocket media call. The client's audio reaches our receiver at the rate the edge
// decodes it to (G.711 at 8 kHz, else 16 kHz):
// - bare payloads as they arrive, so a burst (the client's event loop stalled, then sent what it
//   held) is handed over at once and leaves no queue behind it; each 20 ms frame timed on the
//   carrier's clock by its arrival, 20 ms after the one before (the edge's WS_PAYLOAD_TIMING).
//   On the beat, silence only when nothing came for a beat and a bit (SILENCE_AFTER_MS: clients
//   may send nothing while quiet, and the session needs its beat) and no audio covers the beat;
// - RTP packets through the edge's jitter buffer, one frame per beat (silence while it has none).
// On each 20 ms beat it also sends the client our frame of the beat, encoded and framed by the
// edge. Silence is not sent: the next talkspurt starts with the RTP marker. The socket closing
// ends the leg; ending the leg tells the client (`call_ended`) and closes the socket. Its link
// statistics (for the call's quality) are the edge's counts, each message timed on the carrier's
// clock as it comes.

/**
 * Bare payloads: a beat delivers silence when nothing came for this long. One frame, and half a
 * frame more, so a client sending steadily with a little jitter around the beat's phase gets no
 * silence slipped between its frames (nothing since the previous beat would be enough for that).
 */
export const SILENCE_AFTER_MS = FRAME_MS + FRAME_MS / 2;

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
  const onArrival = edge.framing === 'payload';
  const outgoing = new FrameRing();
  let receiver: MediaReceiver | null = null;
  let endReason: LegEndReason | null = null;
  let talking = false;
  let resolveEnded: (reason: LegEndReason) => void = () => {};
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  /** Bare payloads: when the last message with audio came (null: none yet). */
  let lastArrival: number | null = null;
  // Reused for every beat the client sent nothing: receivers must not keep frames.
  const silence = {
    samples: new Int16Array(samplesPerFrame(edge.receiveRate)),
    sampleRate: edge.receiveRate,
    at: 0,
  } as { -readonly [K in keyof AudioFrame]: AudioFrame[K] };

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
      if (onArrival) {
        if (lastArrival !== null && at - lastArrival < SILENCE_AFTER_MS) return;
        const until = edge.audioUntil;
        if (until !== null && until > at) return; // a burst's audio covers this beat already
      } else {
        const frame = edge.next(at);
        if (frame) {
          receiver?.audio(frame);
          return;
        }
      }
      silence.at = at;
      receiver?.audio(silence);
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
      if (endReason) return;
      const arrivedAt = now();
      if (edge.accept(data, arrivedAt) !== null || !onArrival) return;
      lastArrival = arrivedAt;
      for (let frame = edge.takeArrived(arrivedAt); frame; frame = edge.takeArrived(arrivedAt)) {
        receiver?.audio(frame);
        if (endReason) return; // the receiver hung up
      }
    },
    closed() {
      end('remote_hangup');
    },
  };
}
