import { SpeechError, type ProviderHealth, type VendorVoice } from './types.ts';

// The HTTP half of a hosted TTS: its voice list, and the health check built on it (the one call
// that proves the key, the base URL and the default voice together). Errors name the vendor and
// the HTTP status, never the key.

type Problem = Exclude<ProviderHealth, { ok: true }>['problem'];

/** A failed vendor request, with what it says about the provider's settings. */
export class VendorRequestError extends SpeechError {
  readonly problem: Problem;
  constructor(description: string, problem: Problem, cause?: unknown) {
    super(description, 'tts_unavailable', problem === 'unreachable' || problem === 'bad_response', cause);
    this.problem = problem;
  }
}

export interface VendorGet {
  vendor: string;
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** GETs a vendor's JSON; every failure is a VendorRequestError. */
export async function getVendorJson(request: VendorGet): Promise<unknown> {
  const { vendor } = request;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(request.url, {
      headers: { accept: 'application/json', ...request.headers },
      signal,
    });
  } catch (err) {
    if (request.signal?.aborted) throw request.signal.reason;
    throw new VendorRequestError(`${vendor}: could not be reached`, 'unreachable', err);
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new VendorRequestError(`${vendor}: the key was refused (HTTP ${response.status})`, 'bad_key');
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new VendorRequestError(`${vendor}: answered HTTP ${response.status}`, 'bad_response');
  }
  try {
    return await response.json();
  } catch (err) {
    throw new VendorRequestError(`${vendor}: answered something that is not JSON`, 'bad_response', err);
  }
}

/** A field of an object from a vendor, or undefined. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function genderOf(value: unknown): VendorVoice['gender'] {
  const g = text(value).toLowerCase();
  if (g === 'male' || g === 'masculine') return 'male';
  if (g === 'female' || g === 'feminine') return 'female';
  if (g === 'neutral' || g === 'gender_neutral' || g === 'non-binary') return 'neutral';
  return null;
}

/** Checks a hosted TTS by listing its voices: the key, the URL, and that the default voice exists. */
export async function checkByVoices(
  vendor: string,
  list: () => Promise<VendorVoice[]>,
  defaultVoice: string,
): Promise<ProviderHealth> {
  try {
    const voices = await list();
    if (!voices.some((v) => v.id === defaultVoice)) {
      return {
        ok: false,
        problem: 'bad_voice',
        reason: `${vendor}: the default voice is not among the key's voices`,
      };
    }
    return { ok: true };
  } catch (err) {
    if (err instanceof VendorRequestError) return { ok: false, problem: err.problem, reason: err.message };
    throw err;
  }
}
