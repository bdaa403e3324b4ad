// The sixteen DTMF keys, their RFC 4733 event codes (section 3.2: 0-9, then * # A B C D as 10-15)
// and their tone pairs (ITU-T Q.23): one frequency from the low group by the key's row, one from
// the high group by its column.

/** The keys in event-code order: a key's code is its index here. */
export const DTMF_DIGITS = '0123456789*#ABCD';

/** Row tones, for keys 1 2 3 A / 4 5 6 B / 7 8 9 C / * 0 # D. */
export const DTMF_LOW_HZ: readonly number[] = [697, 770, 852, 941];
/** Column tones, for keys 1 4 7 * / 2 5 8 0 / 3 6 9 # / A B C D. */
export const DTMF_HIGH_HZ: readonly number[] = [1209, 1336, 1477, 1633];

const KEYPAD = ['123A', '456B', '789C', '*0#D'];

/** The RFC 4733 event code of `digit` (case-insensitive for A-D), or -1 for anything else. */
export function dtmfEventCode(digit: string): number {
  return digit.length === 1 ? DTMF_DIGITS.indexOf(digit.toUpperCase()) : -1;
}

/** The key of event code 0-15, or null for any other code. */
export function dtmfDigitOf(code: number): string | null {
  return Number.isInteger(code) ? (DTMF_DIGITS[code] ?? null) : null;
}

/** The key sounding at row `row` (0-3, low group) and column `column` (0-3, high group). */
export function dtmfKeyAt(row: number, column: number): string {
  const key = KEYPAD[row]?.[column];
  if (key === undefined) throw new RangeError(`no DTMF key at row ${row}, column ${column}`);
  return key;
}

/** The low and high frequency of `digit`, or null if it is not a DTMF key. */
export function dtmfFrequencies(digit: string): readonly [number, number] | null {
  const code = dtmfEventCode(digit);
  if (code < 0) return null;
  const key = DTMF_DIGITS[code]!;
  for (let row = 0; row < 4; row += 1) {
    const column = KEYPAD[row]!.indexOf(key);
    if (column >= 0) return [DTMF_LOW_HZ[row]!, DTMF_HIGH_HZ[column]!];
  }
  return null;
}
