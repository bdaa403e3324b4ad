import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { mergeMetadata } from './contacts.ts';
import type { Store } from './index.ts';
import { storeTargets } from './testing/index.ts';

// The contacts repository on both stores: create, read, update (metadata merged key by key,
// email cleared), delete, newest-first paging, the three kinds of search, and workspace scoping.

describe('mergeMetadata', () => {
  it('replaces given keys, removes keys set to null, keeps the others', () => {
    expect(mergeMetadata({ a: 1, b: 'x', c: true }, { b: 'y', c: null, d: [1] })).toEqual({
      a: 1,
      b: 'y',
      d: [1],
    });
  });
});

for (const target of storeTargets()) {
  describe(`contacts repository [${target.dialect}]`, () => {
    let store: Store;
    const clock = createManualClock(Date.UTC(2026, 2, 1));
    let ws: string;
    let other: string;
    beforeEach(async () => {
      store = await target.open(clock);
      ws = (await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 10 })).id;
      other = (await store.workspaces.create({ name: 'o', plan: 'enterprise', maxConcurrentCalls: 10 })).id;
    });
    afterEach(() => store.close());

    const contacts = () => store.contacts;
    const page = { pageNumber: 1, pageSize: 100 };

    it('creates, reads, updates and deletes a contact, only in its workspace', async () => {
      const created = await contacts().create(ws, {
        name: 'Ada Lovelace',
        phoneNumber: '+14155550101',
        email: 'ada@example.com',
        metadata: { company: 'Engines', tier: 2 },
      });
      expect(created).toMatchObject({
        workspaceId: ws,
        name: 'Ada Lovelace',
        phoneNumber: '+14155550101',
        email: 'ada@example.com',
        metadata: { company: 'Engines', tier: 2 },
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      expect(await contacts().get(ws, created.id)).toEqual(created);
      expect(await contacts().get(other, created.id)).toBeNull();

      clock.advance(5000);
      const updated = await contacts().update(ws, created.id, {
        name: 'Ada King',
        email: null,
        metadata: { tier: null, city: 'London' },
      });
      expect(updated).toMatchObject({
        name: 'Ada King',
        phoneNumber: '+14155550101',
        email: null,
        metadata: { company: 'Engines', city: 'London' },
        createdAt: created.createdAt,
        updatedAt: created.createdAt + 5000,
      });
      expect(await contacts().get(ws, created.id)).toEqual(updated);
      expect(await contacts().update(other, created.id, { name: 'x' })).toBeNull();
      expect((await contacts().get(ws, created.id))!.name).toBe('Ada King');

      // An empty patch changes nothing, not even updated_at.
      clock.advance(1000);
      expect(await contacts().update(ws, created.id, {})).toEqual(updated);

      expect(await contacts().delete(other, created.id)).toBe(false);
      expect(await contacts().delete(ws, created.id)).toBe(true);
      expect(await contacts().get(ws, created.id)).toBeNull();
      expect(await contacts().delete(ws, created.id)).toBe(false);
      expect(await contacts().update(ws, created.id, { name: 'x' })).toBeNull();
    });

    it('lists newest first with paging and a total, scoped to the workspace', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await contacts().create(ws, { name: `C${i}`, phoneNumber: `+1415555020${i}` })).id);
      }
      await contacts().create(other, { name: 'Other', phoneNumber: '+14155550209' });
      const first = await contacts().list(ws, { pageNumber: 1, pageSize: 2 });
      expect(first.total).toBe(5);
      expect(first.items.map((c) => c.id)).toEqual([ids[4], ids[3]]);
      const last = await contacts().list(ws, { pageNumber: 3, pageSize: 2 });
      expect(last.items.map((c) => c.id)).toEqual([ids[0]]);
      const past = await contacts().list(ws, { pageNumber: 4, pageSize: 2 });
      expect(past).toEqual({ items: [], total: 5 });
    });

    it('searches a number exactly, numbers by digits, and names case-insensitively', async () => {
      const a = await contacts().create(ws, { name: 'Zoë Ünal', phoneNumber: '+14155550123' });
      const b = await contacts().create(ws, { name: 'Bob 100%_done', phoneNumber: '+441632960123' });
      await contacts().create(other, { name: 'Zoë elsewhere', phoneNumber: '+14155550123' });

      const ids = async (search: Parameters<Store['contacts']['list']>[1]['search']) =>
        (await contacts().list(ws, { ...page, search })).items.map((c) => c.id);

      expect(await ids({ phoneNumber: '+14155550123' })).toEqual([a.id]);
      expect(await ids({ phoneNumber: '+1415555012' })).toEqual([]);
      expect(await ids({ phoneDigits: '0123' })).toEqual([b.id, a.id]);
      expect(await ids({ phoneDigits: '4155' })).toEqual([a.id]);
      expect(await ids({ name: 'ZOË' })).toEqual([a.id]);
      expect(await ids({ name: 'ünal' })).toEqual([a.id]);
      // LIKE wildcards are plain characters.
      expect(await ids({ name: '%_' })).toEqual([b.id]);
      expect(await ids({ name: '_' })).toEqual([b.id]);
      expect(await ids({ name: 'o%' })).toEqual([]);
    });
  });
}
