/** What the main thread tells the pacer worker. */
export type ToPacerWorker =
  { kind: 'add'; id: number; buffer: SharedArrayBuffer } | { kind: 'delete'; id: number };

/** What the pacer worker tells the main thread: whether its thread got the higher priority. */
export type FromPacerWorker = { kind: 'priority'; raised: boolean; reason?: string };

/** The pacer thread's nice value (lower runs first; ordinary threads are at 0). */
export const PACER_NICE = -10;
