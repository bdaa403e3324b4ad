// The voices built into flite.wasm (`flite -lv`: kal awb_time kal16 awb rms slt). awb_time is
// a limited-domain voice that only speaks clock times, so it is left out. The ids are the ones of
// the voice catalogue (src/providers/voices.ts), which are flite's own names.

export interface FliteVoice {
  /** The catalogue id (`agent.voice_id`). */
  id: string;
  /** The name flite's `-voice` takes. */
  fliteName: string;
  /** The rate flite synthesizes it at; 8 kHz voices are resampled to 16 kHz. */
  sampleRate: 8000 | 16000;
}

export const FLITE_VOICES: readonly FliteVoice[] = [
  { id: 'kal16', fliteName: 'kal16', sampleRate: 16000 },
  { id: 'kal', fliteName: 'kal', sampleRate: 8000 },
  { id: 'rms', fliteName: 'rms', sampleRate: 16000 },
  { id: 'slt', fliteName: 'slt', sampleRate: 16000 },
  { id: 'awb', fliteName: 'awb', sampleRate: 16000 },
];

/**
 * Agents' voice: PocketSphinx hears awb second best of the five, at 16 kHz and on phone lines
 * (bench case `flite-voices`); rms, the best, is kept for the sim's people so the sides sound apart.
 */
export const DEFAULT_FLITE_VOICE = 'awb';

export function fliteVoice(id: string): FliteVoice | undefined {
  return FLITE_VOICES.find((v) => v.id === id);
}
