import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../core/index.ts';
import type { Store } from './index.ts';
import { storeTargets } from './testing/index.ts';

// What nodes tell each other (calls across nodes), and the WS media sessions one hands another.

for (const target of storeTargets()) {
  describe(`nodes and WS media sessions [${target.dialect}]`, () => {
    let clock: ManualClock;
    let store: Store;

    beforeEach(async () => {
      clock = createManualClock(1_000_000);
      store = await target.open(clock);
    });
    afterEach(() => store.close());

    it('keeps what each node says about itself, and finds the freshest live one taking WS calls', async () => {
      await store.nodes.heartbeat('api', { publicUrl: 'http://api:8080', wsMedia: false });
      await store.nodes.heartbeat('a', { publicUrl: 'http://a:8080', wsMedia: true });
      clock.advance(1_000);
      await store.nodes.heartbeat('b', { publicUrl: 'http://b:8080', wsMedia: true });
      expect(await store.nodes.get('a')).toEqual({
        name: 'a',
        publicUrl: 'http://a:8080',
        wsMedia: true,
        lastSeenAt: 1_000_000,
      });
      expect(await store.nodes.get('nobody')).toBeNull();
      expect((await store.nodes.freshestWsMedia(0))?.name).toBe('b');
      // A node saying something new is believed.
      clock.advance(1_000);
      await store.nodes.heartbeat('b', { publicUrl: 'https://b.example', wsMedia: false });
      expect(await store.nodes.get('b')).toMatchObject({ publicUrl: 'https://b.example', wsMedia: false });
      expect((await store.nodes.freshestWsMedia(0))?.name).toBe('a');
      // Only nodes seen since the time given count.
      expect(await store.nodes.freshestWsMedia(1_000_500)).toBeNull();
    });

    it('hands a session over by its id and by its call, and forgets long-expired ones', async () => {
      const session = {
        sid: 'sid-1',
        callId: 'call-1',
        node: 'b',
        codec: 'pcmu',
        framing: 'rtp',
        expiresAt: clock.now() + 60_000,
      };
      await store.wsMediaSessions.create(session);
      expect(await store.wsMediaSessions.get('sid-1')).toEqual(session);
      expect(await store.wsMediaSessions.ofCall('call-1')).toEqual(session);
      expect(await store.wsMediaSessions.get('sid-2')).toBeNull();
      // A day past its expiry, the next session started sweeps it away.
      clock.advance(60_000 + 24 * 3_600_000 + 1);
      await store.wsMediaSessions.create({ ...session, sid: 'sid-2', callId: 'call-2' });
      expect(await store.wsMediaSessions.get('sid-1')).toBeNull();
      expect(await store.wsMediaSessions.get('sid-2')).not.toBeNull();
    });
  });
}
