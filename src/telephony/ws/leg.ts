import {
  FRAME_MS,
  TransferRefusedError,
  samplesPerFrame,
  type AudioFrame,
  type MediaReceiver,
} from '../../media/index.ts';
import {
  FrameRing,
  RTP_GRID_AT,
  RTP_SEQUENCE,
  RTP_TIMESTAMP,
  SOCKET_BROKEN,
  SOCKET_CLOCK_RATE,
  SOCKET_RTP,
  WIRE_HEADER_ROOM,
  closeSocket,
  flushOwed,
  holdForMain,
  messageSent,
  releaseFromMain,
  sendBeat,
  socketBuffer,
  socketView,
  stampMessage,
  type FramePacer,
  type FrameTick,
  type FrameTicker,
  type SentBeat,
  type SlotSent,
  type SocketView,
} from '../pacing/index.ts';
import type { CallLeg, LegEndReason } from '../types.ts';
import type { WsMediaEdge } from './edge.ts';
import { WS_CLOSE, type WsMediaSocket } from './socket.ts';

// The leg of a WebSocket media call. The client's audio reaches our receiver at the rate the edge
// decodes it to (G.711 at 8 kHz, else 16 kHz):
// - bare payloads as they arrive, so a burst (the client's event loop stalled, then sent what it
//   held) is handed over at once and leaves no queue behind it; each 20 ms frame timed on the
//   carrier's clock from when it was captured (20 ms before it came), 20 ms after the one before,
//   after any silence filled in (the edge's WS_PAYLOAD_TIMING).
//   On the beat, silence only when nothing came for a beat and a bit (SILENCE_AFTER_MS: clients
//   may send nothing while quiet, and the session needs its beat) and no audio covers the beat,
//   decided after the sockets were read (`afterIo`); a burst read after
//   our own event loop stalled goes back into the gap it left (the edge is told since when the
//   socket went unread);
// - RTP packets through the edge's jitter buffer, one frame per beat (silence while it has none).
// On each 20 ms beat it also sends the client our frame of the beat, encoded and framed by the
// edge. Silence is not sent: the next talkspurt starts with the RTP marker. The socket closing
// ends the leg; ending the leg tells the client (`call_ended`) and closes the socket. Its link
// statistics (for the call's quality) are the edge's counts, each message timed on the carrier's
// clock as it comes.
//
// With a worker pacer and a plain TCP socket (`direct`, the default), our frames are encoded as
// they are queued, into the ring's byte slots, and the pacer worker writes each to the socket's
// descriptor itself as it leaves, stamping its RTP header then (docs/ws-media.md): the main
// thread's event loop no longer delays them. The socket's own messages (text, pings, close) still
// go through the WebSocket library; a shared state word keeps the two from mixing and the worker
// from writing once the socket may close. Should the pacer fall back to the carrier's beat, that
// beat sends the same bytes through the socket.

/**
 * Bare payloads: a beat delivers silence when nothing came for this long. One frame, and half a
 * frame more, so a client sending steadily with a little jitter around the beat's phase gets no
 * silence slipped between its frames (nothing since the previous beat would be enough for that).
 */
export const SILENCE_AFTER_MS = FRAME_MS + FRAME_MS / 2;

/**
 * Runs a task once the event loop has read the sockets after the current phase: a beat runs before
 * the socket's messages of its time are read (Node runs timers before I/O), so whether the client
 * sent nothing is decided after that read.
 */
export type AfterIo = (task: () => void) => void;

const afterIoTasks: (() => void)[] = [];

function runAfterIo(): void {
  const count = afterIoTasks.length;
  for (let i = 0; i < count; i += 1) {
    try {
      afterIoTasks[i]!();
    } catch {
      // A leg that breaks ends itself; the others still get their turn.
    }
  }
  afterIoTasks.splice(0, count);
  if (afterIoTasks.length > 0) setImmediate(runAfterIo); // queued while these ran
}

/** Node's check phase (setImmediate), after the poll phase that reads the sockets; one per round. */
export const afterNextRead: AfterIo = (task) => {
  afterIoTasks.push(task);
  if (afterIoTasks.length === 1) setImmediate(runAfterIo);
};

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
  /**
   * Lets the pacer worker write our frames to the socket itself when it can (default true); false
   * sends them from the carrier's beat on this thread (PARLEY_WS_MEDIA_SENDER=main).
   */
  direct?: boolean;
  /** Where a beat's silence is decided, after the sockets were read (default `afterNextRead`). */
  afterIo?: AfterIo;
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
  const direct = options.direct !== false && pacer.mode === 'worker' ? (socket.direct?.() ?? null) : null;
  const wire: SocketView | null = direct ? socketView(socketBuffer(edge.maxMessageBytes)) : null;
  if (wire) {
    wire.control[SOCKET_RTP] = edge.framing === 'rtp' ? 1 : 0;
    wire.control[SOCKET_CLOCK_RATE] = edge.sendClockRate;
    const first = edge.nextRtp;
    wire.rtp[RTP_SEQUENCE] = first.sequence;
    wire.rtp[RTP_TIMESTAMP] = first.timestamp;
    wire.rtp[RTP_GRID_AT] = Number.NaN;
  }
  const outgoing = new FrameRing(
    wire
      ? {
          encode(frame, slot) {
            const at = slot * wire.slotBytes + WIRE_HEADER_ROOM;
            let length = 0;
            try {
              length = edge.encodeInto(frame, wire.bytes.subarray(at, (slot + 1) * wire.slotBytes));
            } catch {
              length = 0; // the edge closed (the leg ended): the frame is not sent
            }
            wire.lengths[slot] = length;
          },
        }
      : {},
  );
  /** The carrier's beat sends a direct leg's bytes itself (the pacer fell back to it). */
  const sendHere: SlotSent | undefined = wire
    ? (slot, talkspurtStart, gridAt) => {
        const length = wire.lengths[slot] ?? 0;
        if (length === 0) return;
        const start = stampMessage(wire, slot, talkspurtStart, gridAt);
        socket.send(wire.bytes.slice(start, start + length));
        messageSent(wire, slot, gridAt);
      }
    : undefined;
  let cut = false;
  const frameLeft = socket.frameLeft?.bind(socket);
  const left = (sent: SentBeat) => {
    if (!sent.frame) return;
    edge.countSent();
    frameLeft?.(sent.gridAt, sent.sentAt);
  };
  let receiver: MediaReceiver | null = null;
  let endReason: LegEndReason | null = null;
  let talking = false;
  let resolveEnded: (reason: LegEndReason) => void = () => {};
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  /** Bare payloads: when the last message with audio came (null: none yet). */
  let lastArrival: number | null = null;
  /**
   * Bare payloads: when this thread last read its sockets, as far as the leg can tell (a message
   * came, or a beat's silence was decided after the read).
   */
  let polledAt = now();
  /** Bare payloads: the time of the read in progress, and when the socket was read before it. */
  let readAt = Number.NaN;
  let unreadSince = polledAt;
  /** Bare payloads: beats whose silence waits for the read (first and last beat times). */
  let lateFrom: number | null = null;
  let lateTo = 0;
  const afterIo = options.afterIo ?? afterNextRead;
  // Reused for every beat the client sent nothing: receivers must not keep frames.
  const silence = {
    samples: new Int16Array(samplesPerFrame(edge.receiveRate)),
    sampleRate: edge.receiveRate,
    at: 0,
  } as { -readonly [K in keyof AudioFrame]: AudioFrame[K] };

  const beat: FrameTick = {
    send(at) {
      if (endReason) return;
      if (wire) {
        if (pacer.mode === 'caller') {
          // The worker is gone: the rest of a frame it owed the socket goes from here.
          if (direct) flushOwed(wire, direct.fd);
          sendBeat(outgoing.view, at, now(), sendHere);
        }
        outgoing.hear(left);
        if (!cut && Atomics.load(wire.control, SOCKET_BROKEN) !== 0) {
          // A write to the socket failed: the connection is gone.
          cut = true;
          direct?.terminate();
        }
        return;
      }
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
        // The beat runs before the sockets are read (timers before I/O), and the thread may have
        // been busy since it last read them, even when the beat itself is on time: the client's
        // frames of its time may be waiting there. Silence slipped in now would split its speech,
        // so it is decided once they are read.
        if (lateFrom === null) {
          lateFrom = at;
          afterIo(settleLate);
        }
        lateTo = at;
        return;
      }
      const frame = edge.next(at);
      receiver?.audio(frame ?? silenceAt(at));
    },
  };
  function silenceAt(at: number): AudioFrame {
    silence.at = at;
    return silence;
  }
  /** Bare payloads: silence for the beat at `at` when nothing came for a beat and a bit. */
  function fillQuiet(at: number) {
    if (lastArrival !== null && at - lastArrival < SILENCE_AFTER_MS) return;
    const until = edge.audioUntil;
    if (until !== null && until > at) return; // a burst's audio covers this beat already
    edge.filledSilence(at);
    receiver?.audio(silenceAt(at));
  }
  /** The beats, now that the socket was read: silence where nothing came. */
  function settleLate() {
    const from = lateFrom;
    lateFrom = null;
    polledAt = now();
    if (from === null) return;
    for (let at = from; at <= lateTo && !endReason; at += FRAME_MS) fillQuiet(at);
  }
  ticker.add(beat);
  if (direct && wire) {
    const { control } = wire;
    direct.guard({
      closing: () => closeSocket(control),
      writing: () => holdForMain(control),
      written: () => releaseFromMain(control),
    });
    pacer.add(outgoing, { fd: direct.fd, buffer: wire.buffer });
  } else pacer.add(outgoing);

  function end(reason: LegEndReason) {
    if (endReason) return;
    endReason = reason;
    if (wire) closeSocket(wire.control); // the worker never writes to this socket again
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
      throw new TransferRefusedError('a WebSocket media call cannot be handed over by its carrier');
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
      if (arrivedAt !== readAt) {
        // The first message of this read: the socket was last read at `polledAt`.
        readAt = arrivedAt;
        unreadSince = polledAt;
      }
      polledAt = arrivedAt;
      for (
        let frame = edge.takeArrived(arrivedAt, unreadSince);
        frame;
        frame = edge.takeArrived(arrivedAt, unreadSince)
      ) {
        receiver?.audio(frame);
        if (endReason) return; // the receiver hung up
      }
    },
    closed() {
      end('remote_hangup');
    },
  };
}
