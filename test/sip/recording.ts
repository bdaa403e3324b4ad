// Reading a call's recording in the SIP tests: a 16-bit stereo WAV at 16 kHz, the caller on the
// left and the agent's side (what the caller heard) on the right.

/** The right channel (the agent's side) of a 16-bit stereo WAV. */
export function agentSideOf(wav: Buffer): Int16Array {
  const start = wav.indexOf('data', 12) + 8;
  const frames = Math.floor((wav.length - start) / 4);
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i += 1) out[i] = wav.readInt16LE(start + i * 4 + 2);
  return out;
}

/**
 * The part of the agent's side heard while a transfer's bridge stood, from the timeline's
 * `bridged_at` and `ended_at` (the recording ends when the bridged call does), less `skipMs`.
 */
export function bridgedPart(
  agentSide: Int16Array,
  transfer: { bridged_at: string; ended_at: string },
  skipMs: number,
): Int16Array {
  const bridgedMs = Date.parse(transfer.ended_at) - Date.parse(transfer.bridged_at);
  const from = agentSide.length - Math.round((bridgedMs - skipMs) * 16);
  return agentSide.subarray(Math.max(0, from));
}
