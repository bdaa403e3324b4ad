import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAY_MS, createManualClock } from '../core/index.ts';
import type { CallGroup, Store } from './index.ts';
import { storeTargets } from './testing/index.ts';

// The analytics queries on both stores: calls grouped by UTC day, status and end reason with their
// seconds, answered and sentiment counts; per agent with its name and goal successes; per executed
// action (keys of the stored action state); the range's most recent calls; the period before the
// range told apart (day null); and the agent, type and workspace filters.

const T0 = Date.UTC(2026, 3, 10); // a UTC midnight

for (const target of storeTargets()) {
  describe(`analytics repository [${target.dialect}]`, () => {
    let store: Store;
    const clock = createManualClock(T0);
    let ws: string;
    let other: string;
    let agentA: string;
    let agentB: string;

    beforeEach(async () => {
      clock.set(T0);
      store = await target.open(clock);
      ws = (await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 10 })).id;
      other = (await store.workspaces.create({ name: 'o', plan: 'enterprise', maxConcurrentCalls: 10 })).id;
      agentA = (await store.agents.create(ws, { type: 'outbound', name: 'Alpha', spec: {} })).id;
      agentB = (await store.agents.create(ws, { type: 'inbound', name: 'Beta', spec: {} })).id;
    });
    afterEach(() => store.close());

    interface Placed {
      at: number;
      agent?: string;
      workspace?: string;
      type?: 'outbound' | 'inbound' | 'web';
      status?: string;
      reason?: string;
      seconds?: number;
      analysis?: Record<string, unknown>;
      actions?: string[];
    }

    async function place(c: Placed): Promise<string> {
      clock.set(c.at);
      const workspace = c.workspace ?? ws;
      const call = await store.calls.create(workspace, {
        agentId: c.agent ?? agentA,
        type: c.type ?? 'outbound',
        status: 'pending',
        phoneFrom: '+14155550100',
        phoneTo: '+14155550199',
        leadName: 'Lead',
      });
      const executed = Object.fromEntries((c.actions ?? []).map((name) => [name, { name }]));
      await store.calls.update(workspace, call.id, ['pending'], {
        status: c.status ?? 'completed',
        ...(c.reason ? { endCallReason: c.reason } : {}),
        ...(c.seconds !== undefined ? { durationSeconds: c.seconds } : {}),
        ...(c.analysis ? { analysis: c.analysis } : {}),
        ...(c.actions
          ? { state: { actions: { executed_actions: executed, action_execution_timeline: [] } } }
          : {}),
      });
      return call.id;
    }

    const day = (ms: number) => Math.floor(ms / DAY_MS);
    const key = (g: CallGroup) => `${g.day}|${g.status}|${g.endCallReason}`;

    it('groups the calls of the range by day, status and end reason, and the period before apart', async () => {
      const range = { from: T0, to: T0 + 2 * DAY_MS - 1 }; // two days; the period before is two days
      await place({
        at: T0 + 1000,
        seconds: 60,
        reason: 'human_goodbye',
        analysis: { user_sentiment: true, goal: true },
      });
      await place({
        at: T0 + 2000,
        seconds: 30,
        reason: 'human_goodbye',
        analysis: { user_sentiment: 'partial', goal: false },
      });
      await place({ at: T0 + 3000, status: 'no-answer', reason: 'undefined' });
      await place({
        at: T0 + DAY_MS + 5,
        agent: agentB,
        type: 'inbound',
        seconds: 125,
        reason: 'agent_goodbye',
        analysis: { user_sentiment: true, goal: 'partial' },
      });
      // The period before (two days) and outside both.
      await place({ at: T0 - 1, seconds: 10, reason: 'human_goodbye' });
      await place({ at: T0 - 2 * DAY_MS, status: 'busy', reason: 'undefined' });
      await place({ at: T0 - 2 * DAY_MS - 1, seconds: 999 });
      await place({ at: T0 + 2 * DAY_MS, seconds: 999 });
      await place({ at: T0 + 10, workspace: other, seconds: 999 });

      const data = await store.analytics.calls(ws, range);
      expect(data.previousFrom).toBe(T0 - 2 * DAY_MS);
      const groups = Object.fromEntries(data.calls.map((g) => [key(g), g]));
      expect(Object.keys(groups).sort()).toEqual(
        [
          `${day(T0)}|completed|human_goodbye`,
          `${day(T0)}|no-answer|undefined`,
          `${day(T0) + 1}|completed|agent_goodbye`,
          'null|completed|human_goodbye',
          'null|busy|undefined',
        ].sort(),
      );
      expect(groups[`${day(T0)}|completed|human_goodbye`]).toMatchObject({
        calls: 2,
        seconds: 90,
        answered: 2,
        positive: 1,
        judged: 2,
      });
      expect(groups[`${day(T0)}|no-answer|undefined`]).toMatchObject({
        calls: 1,
        seconds: 0,
        answered: 0,
        positive: 0,
        judged: 0,
      });
      expect(groups[`${day(T0) + 1}|completed|agent_goodbye`]).toMatchObject({ calls: 1, seconds: 125 });
      expect(groups['null|completed|human_goodbye']).toMatchObject({ calls: 1, seconds: 10 });

      const agents = data.agents
        .map((a) => `${a.agentName}|${a.previous}|${a.calls}|${a.seconds}|${a.successes}`)
        .sort();
      expect(agents).toEqual(['Alpha|false|3|90|1', 'Alpha|true|2|10|0', 'Beta|false|1|125|0'].sort());

      expect(data.recent.map((c) => c.createdAt)).toEqual([T0 + DAY_MS + 5, T0 + 3000, T0 + 2000, T0 + 1000]);
      expect(data.recent[0]).toMatchObject({
        agentId: agentB,
        agentName: 'Beta',
        type: 'inbound',
        status: 'completed',
      });
    });

    it('filters by agent and by call type', async () => {
      await place({ at: T0 + 1, agent: agentA, type: 'outbound', seconds: 5 });
      await place({ at: T0 + 2, agent: agentB, type: 'inbound', seconds: 7 });
      await place({ at: T0 + 3, agent: agentB, type: 'web', seconds: 11 });
      const range = { from: T0, to: T0 + DAY_MS };
      const seconds = (groups: CallGroup[]) => groups.reduce((s, g) => s + g.seconds, 0);
      expect(seconds((await store.analytics.calls(ws, range)).calls)).toBe(23);
      expect(seconds((await store.analytics.calls(ws, { ...range, agentId: agentB })).calls)).toBe(18);
      expect(seconds((await store.analytics.calls(ws, { ...range, callType: 'web' })).calls)).toBe(11);
      const none = await store.analytics.calls(ws, { ...range, agentId: 'no-such-agent' });
      expect(none).toEqual({
        previousFrom: none.previousFrom,
        calls: [],
        agents: [],
        actions: [],
        recent: [],
      });
      const elsewhere = await store.analytics.calls(other, range);
      expect(elsewhere.calls).toEqual([]);
    });

    it('counts the calls each action ran in, per day, from the stored action state', async () => {
      await place({ at: T0 + 1, actions: ['book', 'sms'] });
      await place({ at: T0 + 2, actions: ['book'] });
      await place({ at: T0 + DAY_MS + 1, actions: ['book'] });
      await place({ at: T0 - 1, actions: ['sms'] });
      await place({ at: T0 + 3 }); // no action state at all
      const data = await store.analytics.calls(ws, { from: T0, to: T0 + 2 * DAY_MS - 1 });
      const actions = data.actions.map((a) => `${a.day}|${a.name}|${a.calls}`).sort();
      expect(actions).toEqual(
        [`${day(T0)}|book|2`, `${day(T0)}|sms|1`, `${day(T0) + 1}|book|1`, 'null|sms|1'].sort(),
      );
    });

    it('lists a deleted agent with no name', async () => {
      await place({ at: T0 + 1, agent: agentB, seconds: 3 });
      await store.agents.delete(ws, agentB);
      const data = await store.analytics.calls(ws, { from: T0, to: T0 + DAY_MS });
      expect(data.agents).toEqual([
        { agentId: agentB, agentName: null, previous: false, calls: 1, seconds: 3, successes: 0 },
      ]);
      expect(data.recent[0]).toMatchObject({ agentId: agentB, agentName: null });
    });
  });
}
