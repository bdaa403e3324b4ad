import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../core/index.ts';
import type { Store } from '../store/index.ts';
import { storeTargets } from '../store/testing/index.ts';
import { AUTH_CACHE_TTL_MS, bearerToken, createAuthenticator, type Authenticator } from './auth.ts';

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    ['Basic abc', null],
    ['Bearer', null],
    ['Bearer a b', null],
    ['', null],
  ])('%j -> %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});

for (const target of storeTargets()) {
  describe(`authenticator cache [${target.dialect}]`, () => {
    let store: Store;
    let clock: ManualClock;
    let auth: Authenticator;
    let workspaceId: string;
    let keyId: string;
    let secret: string;

    beforeEach(async () => {
      clock = createManualClock();
      store = await target.open(clock);
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 10 });
      const key = await store.apiKeys.create(ws.id, 'k');
      workspaceId = ws.id;
      keyId = key.apiKey.id;
      secret = key.secret;
      auth = createAuthenticator(store, clock);
    });
    afterEach(() => store.close());

    it('remembers a key for the TTL, then asks the store again', async () => {
      expect((await auth.authenticate(secret))?.id).toBe(workspaceId);
      // Revoked behind the cache's back (as another process would): remembered until the TTL ends.
      await store.apiKeys.revoke(workspaceId, keyId);
      clock.advance(AUTH_CACHE_TTL_MS - 1);
      expect((await auth.authenticate(secret))?.id).toBe(workspaceId);
      clock.advance(1);
      expect(await auth.authenticate(secret)).toBeNull();
    });

    it('forgets a workspace at once when told', async () => {
      await auth.authenticate(secret);
      await store.workspaces.update(workspaceId, { name: 'renamed' });
      expect((await auth.authenticate(secret))?.name).toBe('w');
      auth.forgetWorkspace(workspaceId);
      expect((await auth.authenticate(secret))?.name).toBe('renamed');
      await store.apiKeys.revoke(workspaceId, keyId);
      auth.forgetWorkspace(workspaceId);
      expect(await auth.authenticate(secret)).toBeNull();
    });

    it('never caches a failed lookup', async () => {
      const later = 'pk_not-yet-created-key-0123456789abcdefghijkl';
      expect(await auth.authenticate(later)).toBeNull();
      await store.apiKeys.create(workspaceId, 'later', later);
      expect((await auth.authenticate(later))?.id).toBe(workspaceId);
    });

    it('with a TTL of 0 always asks the store', async () => {
      const uncached = createAuthenticator(store, clock, 0);
      expect((await uncached.authenticate(secret))?.id).toBe(workspaceId);
      await store.apiKeys.revoke(workspaceId, keyId);
      expect(await uncached.authenticate(secret)).toBeNull();
    });
  });
}
