import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../core/index.ts';
import type { Agent, Store } from './index.ts';
import { parseSnapshot } from './agent-snapshot.ts';
import { storeTargets } from './testing/index.ts';

// The agent versions repository, once per dialect: publishing snapshots the draft (config,
// actions as they were, knowledge base), numbers count per agent, reads are scoped by workspace
// and agent, roll back moves only the live pointer, restore writes a snapshot back as the draft.

for (const target of storeTargets()) {
  describe(`agent versions repository [${target.dialect}]`, () => {
    let clock: ManualClock;
    let store: Store;
    let ws: string;
    let other: string;
    let agent: Agent;

    beforeEach(async () => {
      clock = createManualClock();
      store = await target.open(clock);
      ws = (await store.workspaces.create({ name: 'a', plan: 'enterprise', maxConcurrentCalls: 5 })).id;
      other = (await store.workspaces.create({ name: 'b', plan: 'enterprise', maxConcurrentCalls: 5 })).id;
      agent = await store.agents.create(ws, {
        type: 'outbound',
        name: 'Sam',
        spec: { agent: { prompt: 'v1 prompt', greeting_message: 'Hello one' } },
      });
    });
    afterEach(() => store.close());

    async function extractor(identifier: string) {
      return store.actions.create(ws, {
        kind: 'INFORMATION_EXTRACTOR',
        name: identifier,
        config: { identifier, description: 'd', kind: 'open_question' },
      });
    }

    it('publishes the draft with its actions and knowledge base, and makes it live', async () => {
      const action = await extractor('budget');
      await store.actions.attach(ws, agent.id, [
        { actionId: action.id, attachmentType: 'after', triggerCondition: 'at the end' },
      ]);
      const base = await store.knowledge.createBase(ws, { name: 'FAQ', ragUseCondition: 'always' });
      await store.knowledge.attachBase(ws, base.id, agent.id);
      clock.advance(1000);

      const v1 = await store.agentVersions.publish(ws, agent.id, 'first');
      expect(v1).toMatchObject({ number: 1, description: 'first', agentId: agent.id, workspaceId: ws });
      expect(v1!.createdAt).toBe(clock.now());
      expect(v1!.snapshot).toMatchObject({
        type: 'outbound',
        name: 'Sam',
        spec: { agent: { prompt: 'v1 prompt' } },
        knowledgeBases: [{ id: base.id }],
      });
      expect(v1!.snapshot.actions).toEqual([
        {
          ...action,
          attachment: { attachmentType: 'after', triggerCondition: 'at the end', inputVariablesMapping: [] },
        },
      ]);
      expect((await store.agents.get(ws, agent.id))!.liveVersionId).toBe(v1!.id);

      // Later edits change neither the stored snapshot nor what a read of it returns.
      await store.actions.update(ws, action.id, { name: 'budget', config: { identifier: 'changed' } });
      await store.agents.update(ws, agent.id, { name: 'Sam', spec: { agent: { prompt: 'v2 prompt' } } });
      const again = await store.agentVersions.get(ws, agent.id, v1!.id);
      expect(again).toEqual(v1);

      const v2 = await store.agentVersions.publish(ws, agent.id, null);
      expect(v2).toMatchObject({ number: 2, description: null });
      expect(v2!.snapshot.spec).toEqual({ agent: { prompt: 'v2 prompt' } });
      expect((await store.agents.get(ws, agent.id))!.liveVersionId).toBe(v2!.id);
    });

    it('numbers per agent, lists newest first with paging, and scopes every read', async () => {
      const second = await store.agents.create(ws, { type: 'chat', name: 'B', spec: {} });
      const a1 = await store.agentVersions.publish(ws, agent.id, null);
      const b1 = await store.agentVersions.publish(ws, second.id, null);
      const a2 = await store.agentVersions.publish(ws, agent.id, null);
      const a3 = await store.agentVersions.publish(ws, agent.id, null);
      expect([a1!.number, b1!.number, a2!.number, a3!.number]).toEqual([1, 1, 2, 3]);

      const page = await store.agentVersions.list(ws, agent.id, 2, 0);
      expect(page.total).toBe(3);
      expect(page.items.map((v) => v.number)).toEqual([3, 2]);
      expect((await store.agentVersions.list(ws, agent.id, 2, 2)).items.map((v) => v.id)).toEqual([a1!.id]);

      expect(await store.agentVersions.get(ws, second.id, a1!.id)).toBeNull(); // another agent's
      expect(await store.agentVersions.get(other, agent.id, a1!.id)).toBeNull(); // another workspace
      expect(await store.agentVersions.publish(other, agent.id, null)).toBeNull();
      expect((await store.agentVersions.list(other, agent.id, 10, 0)).total).toBe(0);

      const many = await store.agentVersions.getMany(ws, [a1!.id, b1!.id, a1!.id, 'nope']);
      expect([...many.keys()].sort()).toEqual([a1!.id, b1!.id].sort());
      expect((await store.agentVersions.getMany(other, [a1!.id])).size).toBe(0);
    });

    it('rolls back by moving the live pointer only', async () => {
      const v1 = await store.agentVersions.publish(ws, agent.id, null);
      await store.agents.update(ws, agent.id, { name: 'Sam', spec: { agent: { prompt: 'draft' } } });
      const v2 = await store.agentVersions.publish(ws, agent.id, null);
      expect(await store.agentVersions.setLive(ws, agent.id, v1!.id)).toBe(true);
      const read = await store.agents.get(ws, agent.id);
      expect(read!.liveVersionId).toBe(v1!.id);
      expect(read!.spec).toEqual({ agent: { prompt: 'draft' } });
      expect(await store.agentVersions.setLive(other, agent.id, v2!.id)).toBe(false);
      expect(await store.agentVersions.setLive(ws, agent.id, 'nope')).toBe(false);
    });

    it('restores a version as the draft, its attachments included, and reports what is gone', async () => {
      const kept = await extractor('kept');
      const gone = await extractor('gone');
      await store.actions.attach(ws, agent.id, [
        { actionId: kept.id, attachmentType: 'before', triggerCondition: 'always' },
        gone.id,
      ]);
      const base = await store.knowledge.createBase(ws, { name: 'FAQ' });
      await store.knowledge.attachBase(ws, base.id, agent.id);
      const v1 = await store.agentVersions.publish(ws, agent.id, null);

      const later = await extractor('later');
      await store.actions.detach(ws, agent.id, [kept.id, gone.id]);
      await store.actions.attach(ws, agent.id, [later.id]);
      await store.actions.delete(ws, gone.id);
      await store.knowledge.detachBase(ws, base.id, agent.id);
      await store.agents.update(ws, agent.id, { name: 'Renamed', spec: { agent: { prompt: 'new' } } });

      const restored = await store.agentVersions.restore(ws, agent.id, v1!.id);
      expect(restored!.missingActionIds).toEqual([gone.id]);
      expect(restored!.missingKnowledgeBaseIds).toEqual([]);
      expect(restored!.agent).toMatchObject({ name: 'Sam', spec: { agent: { prompt: 'v1 prompt' } } });
      const attached = (await store.actions.attachedTo(ws, [agent.id])).get(agent.id)!;
      expect(attached.map((a) => [a.id, a.attachment])).toEqual([
        [kept.id, { attachmentType: 'before', triggerCondition: 'always', inputVariablesMapping: [] }],
      ]);
      expect(await store.knowledge.baseOfAgent(ws, agent.id)).toBe(base.id);
      // Not published: the live version did not move.
      expect((await store.agents.get(ws, agent.id))!.liveVersionId).toBe(v1!.id);
      expect(await store.agentVersions.restore(other, agent.id, v1!.id)).toBeNull();
    });

    it('deletes an agent with its versions', async () => {
      const v1 = await store.agentVersions.publish(ws, agent.id, null);
      await store.agents.delete(ws, agent.id);
      expect(await store.agentVersions.getMany(ws, [v1!.id])).toEqual(new Map());
    });

    it('records the version a call runs', async () => {
      const v1 = await store.agentVersions.publish(ws, agent.id, null);
      const base = {
        agentId: agent.id,
        type: 'outbound' as const,
        status: 'pending',
        phoneFrom: '+14155550100',
        phoneTo: '+14155550101',
        leadName: 'Ann',
      };
      const versioned = await store.calls.create(ws, { ...base, agentVersionId: v1!.id });
      const draft = await store.calls.create(ws, base);
      expect((await store.calls.get(ws, versioned.id))!.agentVersionId).toBe(v1!.id);
      expect((await store.calls.get(ws, draft.id))!.agentVersionId).toBeNull();
    });
  });
}

describe('parseSnapshot', () => {
  it('reads a damaged snapshot as what is valid in it, never throwing', () => {
    expect(parseSnapshot('{"type": ', 'w')).toEqual({
      type: '',
      name: '',
      spec: {},
      actions: [],
      knowledgeBases: [],
    });
    const stored = {
      type: 'chat',
      name: 'N',
      spec: { agent: { prompt: 'p' } },
      actions: [{ id: 'x' }],
      knowledgeBases: [{ id: 'kb' }, { nope: 1 }],
    };
    expect(parseSnapshot(JSON.stringify(stored), 'w')).toEqual({
      type: 'chat',
      name: 'N',
      spec: { agent: { prompt: 'p' } },
      actions: [],
      knowledgeBases: [{ id: 'kb' }],
    });
  });
});
