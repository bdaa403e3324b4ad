/** What the main thread tells the pacer worker. */
export type ToPacerWorker =
  | {
      kind: 'add';
      id: number;
      buffer: SharedArrayBuffer;
      /** The worker writes the leg's frames to this socket itself (wire-writer.ts). */
      socket?: PacedSocket;
    }
  | { kind: 'delete'; id: number };

/** A socket the pacer writes a leg's encoded frames to: its descriptor and its shared bytes (ring-layout.ts). */
export interface PacedSocket {
  fd: number;
  buffer: SharedArrayBuffer;
}

/** What the pacer worker tells the main thread: whether its thread got the higher priority. */
export type FromPacerWorker = { kind: 'priority'; raised: boolean; reason?: string };

/** The pacer thread's nice value (lower runs first; ordinary threads are at 0). */
export const PACER_NICE = -10;
