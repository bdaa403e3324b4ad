import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../store/index.ts';
import { storeTargets } from '../store/testing/index.ts';
import { CORPUS, QUESTIONS } from './corpus.fixture.ts';
import { ingestSource, retrieve } from './index.ts';

// Retrieval quality: the corpus is ingested as an agent's knowledge base would be (cleaned,
// chunked, indexed), and each question must find a chunk holding the passage that answers it
// among the top 3. The same bar holds on every dialect.

const K = 3;
const MIN_RECALL = 0.9;

for (const target of storeTargets()) {
  describe(`retrieval quality [${target.dialect}]`, () => {
    let store: Store;
    let workspaceId: string;
    let baseId: string;

    beforeAll(async () => {
      store = await target.open();
      workspaceId = (await store.workspaces.create({ name: 'acme', plan: 'standard', maxConcurrentCalls: 1 }))
        .id;
      baseId = (await store.knowledge.createBase(workspaceId, { name: 'help center' })).id;
      for (const doc of CORPUS) {
        const source = await ingestSource(store, workspaceId, baseId, { type: 'text', ...doc });
        expect(source).not.toBeNull();
      }
    });

    afterAll(async () => {
      await store.close();
    });

    it('holds every answer whole in some chunk', async () => {
      const sources = await store.knowledge.listSources(workspaceId, baseId);
      expect(sources).toHaveLength(CORPUS.length);
      const chunks = (
        await Promise.all(sources.map((s) => store.knowledge.listChunks(workspaceId, s.id)))
      ).flat();
      expect(chunks.length).toBeGreaterThan(CORPUS.length * 2);
      for (const q of QUESTIONS)
        expect(
          chunks.some((c) => c.includes(q.answer)),
          q.answer,
        ).toBe(true);
    });

    it(`finds the answering passage in the top ${K} for at least ${MIN_RECALL * 100}% of ${QUESTIONS.length} questions`, async () => {
      expect(QUESTIONS.length).toBeGreaterThanOrEqual(30);
      const misses: string[] = [];
      let firsts = 0;
      for (const q of QUESTIONS) {
        const passages = await retrieve(store, workspaceId, [baseId], q.question, K);
        expect(passages.length).toBeLessThanOrEqual(K);
        if (passages[0]?.text.includes(q.answer)) firsts++;
        if (!passages.some((p) => p.text.includes(q.answer))) misses.push(q.question);
      }
      const recall = (QUESTIONS.length - misses.length) / QUESTIONS.length;
      console.log(
        `[${target.dialect}] recall@${K} = ${recall.toFixed(3)} (${QUESTIONS.length - misses.length}/${QUESTIONS.length}), ` +
          `recall@1 = ${(firsts / QUESTIONS.length).toFixed(3)}` +
          (misses.length > 0 ? `; missed: ${misses.map((m) => JSON.stringify(m)).join(', ')}` : ''),
      );
      expect(recall).toBeGreaterThanOrEqual(MIN_RECALL);
    });
  });
}
