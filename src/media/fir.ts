// Low-pass FIR design by the window method with a Kaiser window, whose one parameter trades the
// width of the transition band for stopband attenuation (Kaiser & Schafer's formulas, as in
// Oppenheim & Schafer, "Discrete-Time Signal Processing", section 7.6). Runs once per resampler,
// never per frame.

/** Zeroth-order modified Bessel function of the first kind, by its power series. */
export function besselI0(x: number): number {
  const quarterSquare = (x * x) / 4;
  let term = 1;
  let sum = 1;
  for (let k = 1; term > sum * 1e-17; k += 1) {
    term *= quarterSquare / (k * k);
    sum += term;
  }
  return sum;
}

/** The Kaiser window's beta for a stopband `attenuationDb` below the passband. */
export function kaiserBeta(attenuationDb: number): number {
  if (attenuationDb > 50) return 0.1102 * (attenuationDb - 8.7);
  if (attenuationDb >= 21) return 0.5842 * (attenuationDb - 21) ** 0.4 + 0.07886 * (attenuationDb - 21);
  return 0;
}

/** Taps needed for `attenuationDb` with a transition band `transition` wide (fraction of the rate). */
export function kaiserLength(attenuationDb: number, transition: number): number {
  return Math.ceil((attenuationDb - 7.95) / (2.285 * 2 * Math.PI * transition)) + 1;
}

/**
 * A linear-phase low-pass of `length` taps with its -6 dB point at `cutoff` (a fraction of the
 * sample rate, below 0.5) and unity gain at DC.
 */
export function kaiserLowpass(length: number, cutoff: number, attenuationDb: number): Float64Array {
  if (!(cutoff > 0 && cutoff < 0.5) || length < 1) throw new RangeError('bad low-pass parameters');
  const beta = kaiserBeta(attenuationDb);
  const middle = (length - 1) / 2;
  const norm = besselI0(beta);
  const taps = new Float64Array(length);
  for (let n = 0; n < length; n += 1) {
    const t = n - middle;
    const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t);
    const r = middle === 0 ? 0 : t / middle;
    taps[n] = (sinc * besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r)))) / norm;
  }
  let sum = 0;
  for (const tap of taps) sum += tap;
  for (let n = 0; n < length; n += 1) taps[n] = taps[n]! / sum;
  return taps;
}
