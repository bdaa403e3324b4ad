import { describe, expect, it } from 'vitest';
import { BATCH_LIFETIME_MS, expiresAt, isExpired } from './expiry.ts';

describe('batch expiry', () => {
  const created = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('expires seven days after creation', () => {
    expect(BATCH_LIFETIME_MS).toBe(604_800_000);
    expect(expiresAt(created)).toBe(Date.UTC(2026, 0, 8, 12, 0, 0));
  });

  it('is live until the last ms and expired from the exact instant on', () => {
    expect(isExpired(created, created)).toBe(false);
    expect(isExpired(created, expiresAt(created) - 1)).toBe(false);
    expect(isExpired(created, expiresAt(created))).toBe(true);
    expect(isExpired(created, expiresAt(created) + 86_400_000)).toBe(true);
  });
});
