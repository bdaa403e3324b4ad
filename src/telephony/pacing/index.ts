export { FrameRing, type FrameRingOptions, type SentBeat, type SlotEncoder } from './frame-ring.ts';
export { createCallerPacer, createWorkerPacer, type FramePacer, type WorkerPacerOptions } from './pacer.ts';
export type { PacedSocket } from './pacer-protocol.ts';
export {
  SENT_LAST,
  SOCKET_BROKEN,
  SOCKET_BUSY,
  SOCKET_CLOCK_RATE,
  SOCKET_DROPPED,
  SOCKET_RTP,
  SOCKET_SENT,
  RTP_GRID_AT,
  RTP_SEQUENCE,
  RTP_TIMESTAMP,
  WIRE_HEADER_ROOM,
  ringView,
  sendBeat,
  socketBuffer,
  socketView,
  type RingView,
  type SlotSent,
  type SocketView,
} from './ring-layout.ts';
export {
  closeSocket,
  flushOwed,
  holdForMain,
  messageSent,
  releaseFromMain,
  stampMessage,
  writeSlot,
  writerGone,
} from './wire-writer.ts';
export { createFrameTicker, type FrameTick, type FrameTicker } from './ticker.ts';
