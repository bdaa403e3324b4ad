import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../core/index.ts';
import type { Call, Store } from './index.ts';
import { storeTargets } from './testing/index.ts';

// The calls repository's grouped moves (`updateMany`), once per dialect: on PostgreSQL the moves
// of one shape are one statement, so each answer must still be that move's own compare and set.

for (const target of storeTargets()) {
  describe(`calls repository [${target.dialect}]`, () => {
    let clock: ManualClock;
    let store: Store;
    let ws: string;
    let other: string;

    beforeEach(async () => {
      clock = createManualClock();
      store = await target.open(clock);
      ws = (await store.workspaces.create({ name: 'a', plan: 'enterprise', maxConcurrentCalls: 5 })).id;
      other = (await store.workspaces.create({ name: 'b', plan: 'enterprise', maxConcurrentCalls: 5 })).id;
    });
    afterEach(() => store.close());

    const call = (workspaceId = ws, status = 'ringing'): Promise<Call> =>
      store.calls.create(workspaceId, {
        agentId: 'agent-1',
        type: 'outbound',
        status,
        phoneFrom: '+14155550100',
        phoneTo: '+14155550101',
        leadName: 'Ann',
        holdsSlot: status === 'ringing',
      });

    it('moves several calls at once, each by its own patch, and answers null where a move is refused', async () => {
      const [a, b, c, d, e] = await Promise.all([call(), call(), call(), call(ws, 'completed'), call(other)]);
      clock.advance(5_000);
      const moved = await store.calls.updateMany([
        {
          workspaceId: ws,
          id: a!.id,
          from: ['ringing', 'in-progress'],
          patch: {
            status: 'completed',
            endCallReason: 'agent_goodbye',
            holdsSlot: false,
            endedAt: 1_000,
            durationSeconds: 42,
            analysis: { summary: 'ok', nested: [1, 'two'] },
            state: { turns: 3 },
            transcript: 'bot: hi\nhuman: bye',
          },
        },
        // Same shape, other values.
        {
          workspaceId: ws,
          id: b!.id,
          from: ['ringing', 'in-progress'],
          patch: {
            status: 'busy',
            endCallReason: 'busy',
            holdsSlot: false,
            endedAt: 2_000,
            durationSeconds: 0,
            analysis: null,
            state: null,
            transcript: '',
          },
        },
        // Another shape.
        {
          workspaceId: ws,
          id: c!.id,
          from: ['ringing'],
          patch: { status: 'in-progress', answeredAt: 3_000, callSid: 'sid-c' },
        },
        // Refused: not in `from`.
        { workspaceId: ws, id: d!.id, from: ['ringing'], patch: { status: 'failed' } },
        // Refused: another workspace's call.
        { workspaceId: ws, id: e!.id, from: ['ringing'], patch: { status: 'failed' } },
      ]);
      expect(moved.map((m) => m?.id ?? null)).toEqual([a!.id, b!.id, c!.id, null, null]);
      expect(moved[0]).toMatchObject({
        status: 'completed',
        endCallReason: 'agent_goodbye',
        holdsSlot: false,
        endedAt: 1_000,
        durationSeconds: 42,
        analysis: { summary: 'ok', nested: [1, 'two'] },
        transcript: 'bot: hi\nhuman: bye',
        version: a!.version + 1,
        updatedAt: clock.now(),
      });
      expect(moved[1]).toMatchObject({ status: 'busy', endedAt: 2_000, durationSeconds: 0, analysis: null });
      expect(moved[2]).toMatchObject({
        status: 'in-progress',
        answeredAt: 3_000,
        callSid: 'sid-c',
        holdsSlot: true,
      });
      // What was stored is what was answered; refused calls are untouched.
      expect(await store.calls.get(ws, a!.id)).toEqual(moved[0]);
      expect(await store.calls.get(ws, c!.id)).toEqual(moved[2]);
      expect((await store.calls.get(ws, d!.id))?.status).toBe('completed');
      expect((await store.calls.get(other, e!.id))?.status).toBe('ringing');
      expect(await store.calls.busy(ws)).toBe(1); // c still holds its slot
    });

    it('applies two moves of one call in order: the second sees the first', async () => {
      const a = await call();
      const moved = await store.calls.updateMany([
        { workspaceId: ws, id: a.id, from: ['ringing'], patch: { status: 'in-progress', answeredAt: 10 } },
        { workspaceId: ws, id: a.id, from: ['in-progress'], patch: { status: 'completed', endedAt: 20 } },
        { workspaceId: ws, id: a.id, from: ['ringing'], patch: { status: 'failed' } },
      ]);
      expect(moved.map((m) => m?.status ?? null)).toEqual(['in-progress', 'completed', null]);
      expect(await store.calls.get(ws, a.id)).toMatchObject({
        status: 'completed',
        answeredAt: 10,
        endedAt: 20,
        version: a.version + 2,
      });
    });

    it('counts the slots wanted: calls holding one and calls waiting, of this workspace only', async () => {
      await Promise.all([
        call(),
        call(),
        call(ws, 'pending'),
        call(ws, 'completed'),
        call(other),
        call(other, 'pending'),
      ]);
      expect(await store.calls.slotsWanted(ws)).toBe(3);
      expect(await store.calls.slotsWanted(other)).toBe(2);
      expect(await store.calls.slotsWanted('none')).toBe(0);
      expect(await store.calls.hasWaiting(ws)).toBe(true);
      expect(await store.calls.hasWaiting('none')).toBe(false);
    });

    it('creates calls admitted at once up to the free slots, after the calls already waiting', async () => {
      // max 5: two hold a slot, one waits (it keeps its turn), so two of four new calls start.
      await Promise.all([call(), call(), call(ws, 'pending'), call(other)]);
      clock.advance(1_000);
      const inputs = [0, 1, 2, 3].map((i) => ({
        agentId: 'agent-1',
        type: 'outbound' as const,
        status: 'pending',
        phoneFrom: '+14155550100',
        phoneTo: `+1415555030${i}`,
        leadName: `Lead ${i}`,
      }));
      const admitted = await store.transaction((r) => r.calls.createAdmitted(ws, inputs, 5, 'node-a'));
      expect(admitted.map((c) => [c.phoneTo, c.status, c.holdsSlot, c.node, c.ringingAt])).toEqual([
        ['+14155550300', 'ringing', true, 'node-a', clock.now()],
        ['+14155550301', 'ringing', true, 'node-a', clock.now()],
      ]);
      const all = (await store.calls.list(ws, { limit: 10, offset: 0 })).calls;
      expect(
        all.filter((c) => c.phoneTo >= '+14155550302').map((c) => [c.status, c.holdsSlot, c.ringingAt]),
      ).toEqual([
        ['pending', false, null],
        ['pending', false, null],
      ]);
      expect(await store.calls.busy(ws)).toBe(4);
      // Full: nothing more starts, everything is stored.
      expect(
        await store.transaction((r) => r.calls.createAdmitted(ws, inputs.slice(0, 1), 5, 'node-a')),
      ).toEqual([]);
      expect(await store.calls.slotsWanted(ws)).toBe(8);
    });

    it('moves nothing for an empty list', async () => {
      expect(await store.calls.updateMany([])).toEqual([]);
    });
  });
}
