// Fair sharing of free call slots between a workspace's dialable batches: round robin, one slot
// at a time, so a big batch cannot starve a small one, and a rotating start so that leftovers
// (free not a multiple of the batch count) do not always go to the same batches.

export interface SlotDemand {
  id: string;
  /** How many slots the batch can use now (queued recipients, its room under reserved slots). */
  wanted: number;
}

export interface SlotShare {
  /** Slots per batch id, for every batch given (0 for those that got none), in input order. */
  shares: Map<string, number>;
  /**
   * The batch that received the last slot: pass it as `startAfter` next round so the rotation
   * continues where it stopped. Undefined when no slot was given.
   */
  lastServed: string | undefined;
}

/**
 * Splits `free` slots among `batches` one at a time in list order, starting with the batch after
 * `startAfter` (the first batch when it is absent or no longer listed), skipping batches that have
 * what they want. Deterministic; ids are expected to be unique.
 */
export function shareSlotsRound(
  free: number,
  batches: readonly SlotDemand[],
  startAfter?: string,
): SlotShare {
  const wanted = batches.map((b) => wholeCount(b.wanted));
  const given = batches.map(() => 0);
  let remaining = wholeCount(free);
  let lastServed: number | undefined;
  let active = rotationOrder(batches, startAfter).filter((i) => (wanted[i] ?? 0) > 0);
  const want = (i: number) => (wanted[i] ?? 0) - (given[i] ?? 0);
  while (remaining > 0 && active.length > 0) {
    // Whole passes (one slot to every batch still wanting, in rotation order) are given at once:
    // as many as the slots cover and no batch fills up before the last of them. Same result as
    // one at a time, but bounded by the number of batches rather than by the slot counts.
    const passes = Math.min(Math.floor(remaining / active.length), ...active.map(want));
    if (passes > 0) {
      for (const i of active) given[i] = (given[i] ?? 0) + passes;
      remaining -= passes * active.length;
      lastServed = active[active.length - 1];
    } else {
      // Fewer slots than batches: one each, in rotation order, until they run out; the next
      // round's rotation picks up after the last one served.
      for (const i of active.slice(0, remaining)) {
        given[i] = (given[i] ?? 0) + 1;
        lastServed = i;
      }
      remaining = 0;
    }
    active = active.filter((i) => want(i) > 0);
  }
  const shares = new Map(batches.map((b, i) => [b.id, given[i] ?? 0] as const));
  return { shares, lastServed: lastServed === undefined ? undefined : batches[lastServed]?.id };
}

/** The slots per batch id of shareSlotsRound (every batch present, 0 when given none). */
export function shareSlots(
  free: number,
  batches: readonly SlotDemand[],
  startAfter?: string,
): Map<string, number> {
  return shareSlotsRound(free, batches, startAfter).shares;
}

/** Indices of `batches` in serving order: from the one after `startAfter`, wrapping around. */
function rotationOrder(batches: readonly SlotDemand[], startAfter: string | undefined): number[] {
  const after = startAfter === undefined ? -1 : batches.findIndex((b) => b.id === startAfter);
  const start = after + 1;
  return batches.map((_, k) => (start + k) % batches.length);
}

/** A count from a caller's number: NaN and negatives are 0, fractions round down. */
function wholeCount(n: number): number {
  return Number.isNaN(n) ? 0 : Math.max(0, Math.floor(n));
}
