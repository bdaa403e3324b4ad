import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import type { NewSimulationCase, Store } from './index.ts';
import { containsPattern } from './simulations.ts';
import { storeTargets } from './testing/index.ts';

// The simulations repository on both stores: suites and cases with their paging, case-insensitive
// name search that treats `%`, `_` and `\` literally (non-ASCII letters included, the same on
// both dialects), filters, the cases of an agent and of a suite, deleting a suite with its cases,
// and workspace scoping.

describe('containsPattern', () => {
  it('lowercases and escapes LIKE wildcards and the escape character', () => {
    expect(containsPattern('A%b_C\\')).toBe('%a\\%b\\_c\\\\%');
  });
});

for (const target of storeTargets()) {
  describe(`simulations repository [${target.dialect}]`, () => {
    let store: Store;
    const clock = createManualClock();
    let ws: string;
    let other: string;
    beforeEach(async () => {
      store = await target.open(clock);
      ws = (await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 10 })).id;
      other = (await store.workspaces.create({ name: 'o', plan: 'enterprise', maxConcurrentCalls: 10 })).id;
    });
    afterEach(() => store.close());

    const sims = () => store.simulations;
    const newCase = (overrides: Partial<NewSimulationCase> = {}): NewSimulationCase => ({
      name: 'Case',
      prompt: 'You are a caller.',
      type: 'custom',
      successCriteria: ['greets'],
      callSuccessType: 'all',
      ...overrides,
    });
    const page = { pageNumber: 1, pageSize: 100 };

    it('creates, reads, updates and deletes a suite', async () => {
      const suite = await sims().createSuite(ws, { name: 'Smoke', modelId: 'agent-1' });
      expect(suite).toMatchObject({ workspaceId: ws, name: 'Smoke', modelId: 'agent-1', language: 'en-US' });
      expect(await sims().getSuite(ws, suite.id)).toEqual(suite);
      expect(await sims().getSuite(other, suite.id)).toBeNull();

      clock.advance(1000);
      const updated = await sims().updateSuite(ws, suite.id, { name: 'Renamed', language: 'fr-FR' });
      expect(updated).toMatchObject({ name: 'Renamed', language: 'fr-FR', modelId: 'agent-1' });
      expect(updated!.updatedAt).toBe(suite.createdAt + 1000);
      expect(await sims().updateSuite(other, suite.id, { name: 'x' })).toBeNull();

      expect(await sims().deleteSuite(other, suite.id)).toBe(false);
      expect(await sims().deleteSuite(ws, suite.id)).toBe(true);
      expect(await sims().getSuite(ws, suite.id)).toBeNull();
      expect(await sims().deleteSuite(ws, suite.id)).toBe(false);
    });

    it('creates, reads, updates and deletes a case; criteria round-trip as a list', async () => {
      const c = await sims().createCase(
        ws,
        newCase({ successCriteria: ['greets', 'books "a" slot'], baseAgentId: 'agent-1' }),
      );
      expect(c).toMatchObject({
        workspaceId: ws,
        suiteId: null,
        type: 'custom',
        successCriteria: ['greets', 'books "a" slot'],
        callSuccessType: 'all',
        baseAgentId: 'agent-1',
      });
      expect(await sims().getCase(ws, c.id)).toEqual(c);
      expect(await sims().getCase(other, c.id)).toBeNull();

      const suite = await sims().createSuite(ws, { name: 's', modelId: 'agent-1' });
      const moved = await sims().updateCase(ws, c.id, {
        suiteId: suite.id,
        type: 'agent_based',
        callSuccessType: 'any',
        successCriteria: ['x'],
      });
      expect(moved).toMatchObject({ suiteId: suite.id, type: 'agent_based', callSuccessType: 'any' });
      expect(moved!.successCriteria).toEqual(['x']);
      const cleared = await sims().updateCase(ws, c.id, { suiteId: null, baseAgentId: null });
      expect(cleared).toMatchObject({ suiteId: null, baseAgentId: null, name: 'Case' });
      expect(await sims().updateCase(other, c.id, { name: 'x' })).toBeNull();

      expect(await sims().deleteCase(other, c.id)).toBe(false);
      expect(await sims().deleteCase(ws, c.id)).toBe(true);
      expect(await sims().getCase(ws, c.id)).toBeNull();
    });

    it('deleting a suite deletes its cases and leaves the others', async () => {
      const suite = await sims().createSuite(ws, { name: 's', modelId: 'a' });
      const inside = await sims().createCase(ws, newCase({ suiteId: suite.id }));
      const outside = await sims().createCase(ws, newCase());
      expect(await sims().deleteSuite(ws, suite.id)).toBe(true);
      expect(await sims().getCase(ws, inside.id)).toBeNull();
      expect(await sims().getCase(ws, outside.id)).not.toBeNull();
    });

    it('pages cases newest first with the total', async () => {
      for (let i = 0; i < 5; i++) await sims().createCase(ws, newCase({ name: `c${i}` }));
      await sims().createCase(other, newCase({ name: 'theirs' }));
      const first = await sims().listCases(ws, { pageNumber: 1, pageSize: 2 });
      expect(first.total).toBe(5);
      expect(first.items.map((c) => c.name)).toEqual(['c4', 'c3']);
      const last = await sims().listCases(ws, { pageNumber: 3, pageSize: 2 });
      expect(last.items.map((c) => c.name)).toEqual(['c0']);
      const beyond = await sims().listCases(ws, { pageNumber: 4, pageSize: 2 });
      expect(beyond).toEqual({ items: [], total: 5 });
    });

    it('searches names case-insensitively, with %, _ and \\ taken literally', async () => {
      const names = ['Angry Caller', 'angry_customer', 'Happy caller', '100% done', 'a\\b', 'Émile ÉTÉ'];
      for (const name of names) await sims().createCase(ws, newCase({ name }));
      const search = async (term: string) =>
        (await sims().listCases(ws, { ...page, search: term })).items.map((c) => c.name).sort();
      expect(await search('ANGRY')).toEqual(['Angry Caller', 'angry_customer']);
      expect(await search('caller')).toEqual(['Angry Caller', 'Happy caller']);
      expect(await search('_')).toEqual(['angry_customer']);
      expect(await search('%')).toEqual(['100% done']);
      expect(await search('\\')).toEqual(['a\\b']);
      expect(await search('émile été')).toEqual(['Émile ÉTÉ']);
      expect(await search('nothing')).toEqual([]);
      expect((await sims().listCases(ws, { ...page, search: 'angry' })).total).toBe(2);

      // Renaming refreshes what search sees.
      const [angry] = (await sims().listCases(ws, { ...page, search: 'angry caller' })).items;
      await sims().updateCase(ws, angry!.id, { name: 'Calm' });
      expect(await search('angry')).toEqual(['angry_customer']);
      expect(await search('CALM')).toEqual(['Calm']);
    });

    it('filters cases by type and suite', async () => {
      const suite = await sims().createSuite(ws, { name: 's', modelId: 'a' });
      await sims().createCase(ws, newCase({ name: 'x', type: 'agent_based', suiteId: suite.id }));
      await sims().createCase(ws, newCase({ name: 'y', type: 'custom', suiteId: suite.id }));
      await sims().createCase(ws, newCase({ name: 'z', type: 'agent_based' }));
      const names = async (o: object) =>
        (await sims().listCases(ws, { ...page, ...o })).items.map((c) => c.name).sort();
      expect(await names({ type: 'agent_based' })).toEqual(['x', 'z']);
      expect(await names({ suiteId: suite.id })).toEqual(['x', 'y']);
      expect(await names({ suiteId: suite.id, type: 'custom' })).toEqual(['y']);
      expect(await names({ suiteId: suite.id, search: 'X' })).toEqual(['x']);
    });

    it('lists suites with search, agent and date filters', async () => {
      const t0 = clock.now();
      await sims().createSuite(ws, { name: 'Billing flows', modelId: 'a' });
      clock.advance(1000);
      await sims().createSuite(ws, { name: 'Booking', modelId: 'b' });
      clock.advance(1000);
      await sims().createSuite(ws, { name: 'BILLING edge', modelId: 'c' });
      await sims().createSuite(other, { name: 'Billing', modelId: 'a' });
      const names = async (o: object) =>
        (await sims().listSuites(ws, { ...page, ...o })).items.map((s) => s.name);
      expect(await names({})).toEqual(['BILLING edge', 'Booking', 'Billing flows']);
      expect(await names({ search: 'billing' })).toEqual(['BILLING edge', 'Billing flows']);
      expect(await names({ modelIds: ['a', 'b'] })).toEqual(['Booking', 'Billing flows']);
      expect(await names({ modelIds: [] })).toEqual([]);
      expect(await names({ startDate: t0 + 1000 })).toEqual(['BILLING edge', 'Booking']);
      expect(await names({ endDate: t0 + 1000 })).toEqual(['Booking', 'Billing flows']);
      expect(await names({ startDate: t0 + 1000, endDate: t0 + 1000 })).toEqual(['Booking']);
      const second = await sims().listSuites(ws, { pageNumber: 2, pageSize: 2, search: 'b' });
      expect(second.total).toBe(3);
      expect(second.items.map((s) => s.name)).toEqual(['Billing flows']);
    });

    it('finds the cases of an agent: based on it or in one of its suites', async () => {
      const mine = await sims().createSuite(ws, { name: 'mine', modelId: 'agent-1' });
      const theirs = await sims().createSuite(ws, { name: 'theirs', modelId: 'agent-2' });
      const based = await sims().createCase(ws, newCase({ name: 'based', baseAgentId: 'agent-1' }));
      const inSuite = await sims().createCase(ws, newCase({ name: 'in suite', suiteId: mine.id }));
      await sims().createCase(ws, newCase({ name: 'other suite', suiteId: theirs.id }));
      await sims().createCase(ws, newCase({ name: 'loose' }));
      await sims().createCase(other, newCase({ name: 'other ws', baseAgentId: 'agent-1' }));
      const found = await sims().casesOfAgent(ws, 'agent-1');
      expect(found.map((c) => c.id)).toEqual([inSuite.id, based.id]);
      expect(await sims().casesOfAgent(ws, 'agent-3')).toEqual([]);
    });

    it('gives the cases of suites in the order created and moves cases between suites', async () => {
      const a = await sims().createSuite(ws, { name: 'a', modelId: 'x' });
      const b = await sims().createSuite(ws, { name: 'b', modelId: 'x' });
      const c1 = await sims().createCase(ws, newCase({ name: '1', suiteId: a.id }));
      const c2 = await sims().createCase(ws, newCase({ name: '2', suiteId: a.id }));
      const c3 = await sims().createCase(ws, newCase({ name: '3' }));
      const theirs = await sims().createCase(other, newCase({ name: 'theirs' }));
      expect((await sims().casesOfSuite(ws, a.id)).map((c) => c.id)).toEqual([c1.id, c2.id]);
      expect(await sims().moveCases(ws, [c2.id, c3.id, theirs.id], b.id)).toBe(2);
      const bySuite = await sims().casesOfSuites(ws, [a.id, b.id, 'none']);
      expect(bySuite.get(a.id)!.map((c) => c.id)).toEqual([c1.id]);
      expect(bySuite.get(b.id)!.map((c) => c.id)).toEqual([c2.id, c3.id]);
      expect(bySuite.get('none')).toEqual([]);
      expect((await sims().getCase(other, theirs.id))!.suiteId).toBeNull();
      expect((await sims().getCases(ws, [c3.id, theirs.id, c1.id])).map((c) => c.id)).toEqual([c1.id, c3.id]);
    });
  });
}
