export { FrameRing, type SentBeat } from './frame-ring.ts';
export { createCallerPacer, createWorkerPacer, type FramePacer, type WorkerPacerOptions } from './pacer.ts';
export { sendBeat } from './ring-layout.ts';
export { createFrameTicker, type FrameTick, type FrameTicker } from './ticker.ts';
