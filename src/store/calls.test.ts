import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../core/index.ts';
import { parseCallSettings, type Call, type Store } from './index.ts';
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

    it('lists a filter page by page, newest first, each page the next slice of the whole', async () => {
      for (let i = 0; i < 13; i += 1) await call(ws, i % 3 === 0 ? 'busy' : 'completed');
      await call(other, 'completed');
      const whole = await store.calls.list(ws, { status: 'completed', limit: 100, offset: 0 });
      expect(whole.total).toBe(8);
      const seqs = whole.calls.map((c) => c.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
      for (const offset of [0, 3, 6, 7, 8]) {
        const page = await store.calls.list(ws, { status: 'completed', limit: 3, offset });
        expect(page.total).toBe(8);
        expect(page.calls.map((c) => c.id)).toEqual(whole.calls.slice(offset, offset + 3).map((c) => c.id));
      }
      const unfiltered = await store.calls.list(ws, { limit: 5, offset: 10 });
      expect(unfiltered).toMatchObject({ total: 13 });
      expect(unfiltered.calls.map((c) => c.status)).toEqual(['completed', 'completed', 'busy']);
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

    describe('releaseSlots', () => {
      const live = async (workspaceId = ws) => {
        const c = await call(workspaceId);
        return (await store.calls.update(workspaceId, c.id, ['ringing'], { status: 'in-progress' }))!;
      };
      const waiting = (batchCallId?: string) =>
        store.calls.create(ws, {
          agentId: 'agent-1',
          type: 'outbound',
          status: 'pending',
          phoneFrom: '+14155550100',
          phoneTo: '+14155550102',
          leadName: 'Bo',
          ...(batchCallId ? { batchCallId } : {}),
        });
      const batchOf = async (reservedConcurrency: number) =>
        (
          await store.batches.create(
            ws,
            {
              agentId: 'agent-1',
              name: 'b',
              fromPhoneNumber: '+14155550100',
              fromProvider: 'sim',
              triggerAt: null,
              reservedConcurrency,
              callTimeWindow: null,
              lifetimeMs: 60_000,
            },
            [{ toPhoneNumber: '+14155550109' }],
          )
        ).id;

      it('hands each freed slot to one waiting call, oldest first, in the same move', async () => {
        const [a, b, c] = [await live(), await live(), await live()];
        const [p1, p2, p3] = [await waiting(), await waiting(), await waiting()];
        clock.advance(2_000);
        const { released, admitted } = await store.calls.releaseSlots(
          ws,
          [
            { id: a.id, endedAt: 1_500 },
            { id: b.id, endedAt: 1_600 },
          ],
          'node-b',
        );
        expect(released.map((r) => [r?.id, r?.holdsSlot, r?.endedAt, r?.status])).toEqual([
          [a.id, false, 1_500, 'in-progress'],
          [b.id, false, 1_600, 'in-progress'],
        ]);
        // Max 5 had two free slots already; a release admits no more calls than it frees.
        expect(admitted.map((x) => [x.id, x.status, x.holdsSlot, x.node, x.ringingAt])).toEqual([
          [p1!.id, 'ringing', true, 'node-b', clock.now()],
          [p2!.id, 'ringing', true, 'node-b', clock.now()],
        ]);
        expect(await store.calls.busy(ws)).toBe(3);
        // Released already: nothing moves, nothing is admitted; nor when the node stops.
        expect(await store.calls.releaseSlots(ws, [{ id: a.id, endedAt: 9 }], 'node-b')).toEqual({
          released: [null],
          admitted: [],
        });
        const none = await store.calls.releaseSlots(ws, [{ id: c.id, endedAt: 9 }], 'node-b', false);
        expect([none.released[0]?.holdsSlot, none.admitted]).toEqual([false, []]);
        expect((await store.calls.get(ws, p3!.id))?.status).toBe('pending');
        expect(await store.calls.busy(ws)).toBe(2);
      });

      it('admits a batch call only while its batch dials and the workspace stays within max - reserved', async () => {
        const reserved = await batchOf(2);
        const paused = await batchOf(0);
        await store.batches.move(ws, reserved, ['scheduled'], 'in_progress');
        await store.batches.move(ws, paused, ['scheduled'], 'paused');
        const holding = [await live(), await live(), await live(), await live(), await live()];
        const fromPaused = await waiting(paused);
        const fromReserved = await waiting(reserved);
        // 5 of 5 held: one release leaves 4, and the batch may only go up to 5 - 2 = 3.
        const first = await store.calls.releaseSlots(ws, [{ id: holding[0]!.id, endedAt: 1 }], 'n');
        expect(first.admitted).toEqual([]);
        // Two more released: 2 held, so the batch's call takes a slot (3 <= 3); the paused
        // batch's call never does.
        const second = await store.calls.releaseSlots(
          ws,
          [
            { id: holding[1]!.id, endedAt: 2 },
            { id: holding[2]!.id, endedAt: 2 },
          ],
          'n',
        );
        expect(second.admitted.map((x) => x.id)).toEqual([fromReserved.id]);
        expect((await store.calls.get(ws, fromPaused.id))?.status).toBe('pending');
        expect(await store.calls.busy(ws)).toBe(3);
        // The locked admission follows the same rules.
        expect(await store.calls.admit(ws, 5, 'n')).toEqual([]);
      });

      it('gives a call placed on its own the slot before older standby calls of a batch', async () => {
        const dialing = await batchOf(0);
        await store.batches.move(ws, dialing, ['scheduled'], 'in_progress');
        const holding = [await live(), await live(), await live(), await live(), await live()];
        const standby = [await waiting(dialing), await waiting(dialing)];
        const single = await waiting();
        const first = await store.calls.releaseSlots(ws, [{ id: holding[0]!.id, endedAt: 1 }], 'n');
        expect(first.admitted.map((x) => x.id)).toEqual([single.id]);
        const next = await store.calls.releaseSlots(ws, [{ id: holding[1]!.id, endedAt: 2 }], 'n');
        expect(next.admitted.map((x) => x.id)).toEqual([standby[0]!.id]);
        // A call placed on its own counts only such calls ahead of it (for its eta).
        expect(await store.calls.queueAhead(ws, single.seq + 1_000)).toEqual({ waiting: 0, busy: 5 });
        // The locked admission orders them the same way.
        const later = await waiting();
        await store.calls.update(ws, holding[2]!.id, ['in-progress'], {
          status: 'completed',
          holdsSlot: false,
        });
        expect((await store.calls.admit(ws, 5, 'n')).map((x) => x.id)).toEqual([later.id]);
      });

      it('admits a call waiting for a named node on that node only', async () => {
        const holding = [await live(), await live(), await live(), await live(), await live()];
        const pinned = await store.calls.create(ws, {
          agentId: 'agent-1',
          type: 'web',
          status: 'pending',
          phoneFrom: '+14155550100',
          phoneTo: '+14155550102',
          leadName: 'Bo',
          node: 'b',
        });
        const anyNode = await waiting();
        const onA = await store.calls.releaseSlots(ws, [{ id: holding[0]!.id, endedAt: 1 }], 'a');
        expect(onA.admitted.map((x) => x.id)).toEqual([anyNode.id]);
        await store.calls.update(ws, holding[1]!.id, ['in-progress'], {
          status: 'completed',
          holdsSlot: false,
        });
        expect(await store.calls.admit(ws, 5, 'a')).toEqual([]);
        const onB = await store.calls.admit(ws, 5, 'b');
        expect(onB.map((x) => [x.id, x.node, x.status])).toEqual([[pinned.id, 'b', 'ringing']]);
      });

      it('releases calls of one workspace only', async () => {
        const mine = await live(other);
        const { released } = await store.calls.releaseSlots(ws, [{ id: mine.id, endedAt: 1 }], 'n');
        expect(released).toEqual([null]);
        expect(await store.calls.busy(other)).toBe(1);
      });
    });

    describe('remove', () => {
      // src/calls' FINAL_STATUSES in part: the store takes the list from its caller.
      const FINAL = ['completed', 'failed', 'busy', 'no-answer'];

      it('deletes a call of its workspace only when its status is final, and only once', async () => {
        const done = await call(ws, 'completed');
        const ringing = await call();
        const waiting = await call(ws, 'pending');
        const elsewhere = await call(other, 'completed');
        // Final but still counted against the slots (its last move has not released it yet).
        const holding = await store.calls.create(ws, {
          agentId: 'agent-1',
          type: 'inbound',
          status: 'failed',
          phoneFrom: '+14155550100',
          phoneTo: '+14155550101',
          leadName: 'Cy',
          holdsSlot: true,
        });

        expect(await store.calls.remove(ws, ringing.id, FINAL)).toBe(false);
        expect(await store.calls.remove(ws, waiting.id, FINAL)).toBe(false);
        expect(await store.calls.remove(ws, elsewhere.id, FINAL)).toBe(false);
        expect(await store.calls.remove(ws, holding.id, FINAL)).toBe(false);
        expect(await store.calls.remove(ws, done.id, [])).toBe(false);
        expect(await store.calls.remove(ws, done.id, ['failed'])).toBe(false);
        expect(await store.calls.remove(ws, done.id, FINAL)).toBe(true);
        expect(await store.calls.remove(ws, done.id, FINAL)).toBe(false);

        expect(await store.calls.get(ws, done.id)).toBeNull();
        for (const [w, c] of [
          [ws, ringing],
          [ws, waiting],
          [other, elsewhere],
          [ws, holding],
        ] as const) {
          expect((await store.calls.get(w, c.id))?.status).toBe(c.status);
        }
        // A call ended later can go.
        await store.calls.update(ws, ringing.id, ['ringing'], { status: 'no-answer', holdsSlot: false });
        expect(await store.calls.remove(ws, ringing.id, FINAL)).toBe(true);
        expect((await store.calls.list(ws, { limit: 10, offset: 0 })).total).toBe(2);
      });

      it('keeps the webhook history and the batch recipient that name the call', async () => {
        const batch = await store.batches.create(
          ws,
          {
            agentId: 'agent-1',
            name: 'b',
            fromPhoneNumber: '+14155550100',
            fromProvider: 'sim',
            triggerAt: null,
            reservedConcurrency: 0,
            callTimeWindow: null,
            lifetimeMs: 60_000,
          },
          [{ toPhoneNumber: '+14155550101' }],
        );
        await store.batches.move(ws, batch.id, ['scheduled'], 'in_progress');
        const [task] = await store.batches.claim(batch.id, 1, 'n');
        const done = await call(ws, 'completed');
        await store.batches.dispatch(task!.id, done.id);
        const delivery = await store.webhooks.enqueue({
          workspaceId: ws,
          type: 'external_webhook',
          url: 'https://example.com/hook',
          payload: { call_id: done.id },
          callId: done.id,
        });
        const log = await store.webhooks.appendLog({
          workspaceId: ws,
          webhookType: 'external_webhook',
          status: 'success',
          callId: done.id,
          url: 'https://example.com/hook',
          requestHeaders: {},
          requestBody: '{}',
          attemptNumber: 1,
          durationMs: 5,
        });
        expect((await store.batches.listTasks(batch.id, { limit: 10, offset: 0 }))[0]).toMatchObject({
          callId: done.id,
          callStatus: 'completed',
        });

        expect(await store.calls.remove(ws, done.id, FINAL)).toBe(true);

        expect(await store.webhooks.getDelivery(ws, delivery.id)).toMatchObject({ callId: done.id });
        expect(await store.webhooks.getLog(ws, log.id)).toMatchObject({ callId: done.id });
        expect((await store.batches.listTasks(batch.id, { limit: 10, offset: 0 }))[0]).toMatchObject({
          status: 'dispatched',
          callId: done.id,
          callStatus: null,
        });
      });
    });

    it('moves nothing for an empty list', async () => {
      expect(await store.calls.updateMany([])).toEqual([]);
    });

    describe('turns of running calls (022)', () => {
      const turn = (speaker: 'agent' | 'user', text: string, at: number, interrupted = false) => ({
        speaker,
        text,
        at,
        interrupted,
      });

      it('keeps turns as written, rewrites changed ones, drops taken-back ones, per call and workspace', async () => {
        const [a, b, c] = await Promise.all([call(), call(), call(other)]);
        await store.callTurns.write([
          {
            workspaceId: ws,
            callId: a!.id,
            from: 0,
            turns: [turn('agent', 'Hello, this is Sam.', 1_000), turn('user', 'Hi.', 2_000)],
          },
          { workspaceId: ws, callId: b!.id, from: 0, turns: [turn('agent', 'Good morning.', 1_500)] },
          { workspaceId: other, callId: c!.id, from: 0, turns: [turn('user', 'Hello?', 1_200)] },
        ]);
        expect(await store.callTurns.of(ws, a!.id)).toEqual([
          turn('agent', 'Hello, this is Sam.', 1_000),
          turn('user', 'Hi.', 2_000),
        ]);
        // The agent's reply, cut short afterwards: the same turn rewritten.
        await store.callTurns.write([
          {
            workspaceId: ws,
            callId: a!.id,
            from: 2,
            turns: [turn('agent', 'We install solar panels', 3_000)],
          },
        ]);
        await store.callTurns.write([
          { workspaceId: ws, callId: a!.id, from: 2, turns: [turn('agent', 'We install', 3_400, true)] },
        ]);
        expect(await store.callTurns.of(ws, a!.id)).toEqual([
          turn('agent', 'Hello, this is Sam.', 1_000),
          turn('user', 'Hi.', 2_000),
          turn('agent', 'We install', 3_400, true),
        ]);
        // A conversation that took back its last turns: fewer turns than stored.
        await store.callTurns.write([{ workspaceId: ws, callId: a!.id, from: 1, turns: [] }]);
        expect(await store.callTurns.of(ws, a!.id)).toEqual([turn('agent', 'Hello, this is Sam.', 1_000)]);
        // Other calls untouched; another workspace's call reads as having none.
        expect(await store.callTurns.of(ws, b!.id)).toEqual([turn('agent', 'Good morning.', 1_500)]);
        expect(await store.callTurns.of(ws, c!.id)).toEqual([]);
        expect(await store.callTurns.of(other, c!.id)).toEqual([turn('user', 'Hello?', 1_200)]);

        await store.callTurns.drop([a!.id, c!.id]);
        expect(await store.callTurns.of(ws, a!.id)).toEqual([]);
        expect(await store.callTurns.of(other, c!.id)).toEqual([]);
        expect(await store.callTurns.of(ws, b!.id)).toHaveLength(1);
        await store.callTurns.write([]);
        await store.callTurns.drop([]);
      });

      it('stores long transcripts and any text as it is', async () => {
        const a = await call();
        const text = `It's "quoted" — ünïcödé; DROP TABLE call_turns; ${'x'.repeat(5_000)}`;
        const turns = Array.from({ length: 1_200 }, (_, i) =>
          turn(i % 2 ? 'user' : 'agent', i === 7 ? text : `line ${i}`, 10_000 + i),
        );
        await store.callTurns.write([{ workspaceId: ws, callId: a.id, from: 0, turns }]);
        const stored = await store.callTurns.of(ws, a.id);
        expect(stored).toHaveLength(1_200);
        expect(stored[7]!.text).toBe(text);
        expect(stored[1_199]).toEqual(turn('user', 'line 1199', 11_199));
      });

      it('writes nothing of a group when one write fails', async () => {
        const a = await call();
        await store.callTurns.write([
          { workspaceId: ws, callId: a.id, from: 0, turns: [turn('user', 'Hi.', 1)] },
        ]);
        const bad = { speaker: 'agent', text: null, at: 2, interrupted: false } as unknown as ReturnType<
          typeof turn
        >;
        await expect(
          store.callTurns.write([
            { workspaceId: ws, callId: a.id, from: 0, turns: [turn('user', 'Changed.', 1)] },
            { workspaceId: ws, callId: 'other-call', from: 0, turns: [bad] },
          ]),
        ).rejects.toThrow();
        expect(await store.callTurns.of(ws, a.id)).toEqual([turn('user', 'Hi.', 1)]);
      });
    });
  });
}

describe('parseCallSettings', () => {
  it('keeps the known fields of their types and drops the rest', () => {
    expect(
      parseCallSettings({
        provider: 'sip',
        prompt: 'Be brief.',
        greeting: 'Hi!',
        default_agent: null,
        routed_from: 'agent-1',
        recording_url: 'https://x/rec',
        cut_short: true,
        unknown: 1,
      }),
    ).toEqual({
      provider: 'sip',
      prompt: 'Be brief.',
      greeting: 'Hi!',
      default_agent: null,
      routed_from: 'agent-1',
      recording_url: 'https://x/rec',
      cut_short: true,
    });
    expect(parseCallSettings({ provider: 7, cut_short: 'yes', default_agent: 3 })).toEqual({});
    expect(parseCallSettings(null)).toEqual({});
    expect(parseCallSettings('text')).toEqual({});
  });
});
