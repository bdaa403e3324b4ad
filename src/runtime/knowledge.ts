import { retrieve } from '../knowledge/index.ts';
import type { Agent, Repositories } from '../store/index.ts';

// Knowledge for a conversation: the agent's knowledge base, consulted on a user turn when the
// base's `rag_use_condition` allows it, without a model call (zero added latency, the same
// answer every time; docs/api-notes.md "Knowledge bases"):
// - empty, `always`, `every turn`: every user turn;
// - `never`, `off`, `disabled`: never (the base stays attached but unused);
// - any other text: the turn is a question (a `?`, or it starts with a question word or a
//   request such as "tell me"), or it shares a meaningful word (4+ letters, by its first five
//   letters, stop words left out) with the condition.

const ALWAYS = new Set(['', 'always', 'every turn', 'always use', 'all']);
const NEVER = new Set(['never', 'off', 'disabled', 'none']);

const QUESTION_START =
  /^(what|whats|what's|when|where|which|who|whom|whose|why|how|is|are|am|was|were|do|does|did|can|could|should|would|will|may|might|have|has|tell me|explain|describe|i (want|need|would like) to know|i'm wondering|i wonder)\b/;

const STOP = new Set(
  'about asks asked asking question questions user users caller callers customer customers lead leads when whenever where what which that this those these with from into only them they their there have has will would should could your ours ours mention mentions mentioned talks talk says said something anything regarding related information info details specific specifically'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .match(/\p{L}+/gu) ?? []
  ).filter((w) => w.length >= 4 && !STOP.has(w));
}

/** Whether the knowledge base is consulted for `userText` under `condition`. */
export function ragConditionAllows(condition: string, userText: string): boolean {
  const c = condition
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');
  if (ALWAYS.has(c)) return true;
  if (NEVER.has(c)) return false;
  const text = userText.trim().toLowerCase();
  if (text.includes('?') || QUESTION_START.test(text)) return true;
  const wanted = new Set(words(c).map((w) => w.slice(0, 5)));
  return words(text).some((w) => wanted.has(w.slice(0, 5)));
}

/** The knowledge base attached to an agent, as a conversation consults it. */
export interface AttachedKnowledgeBase {
  id: string;
  ragUseCondition: string;
}

/**
 * The knowledge bases of several agents (absent: none), in two reads whatever their number: an
 * admission of hundreds of calls reads them once, not once per call.
 */
export async function knowledgeBasesOf(
  repos: Repositories,
  workspaceId: string,
  agentIds: readonly string[],
): Promise<Map<string, AttachedKnowledgeBase>> {
  const baseIds = await repos.knowledge.basesOfAgents(workspaceId, agentIds);
  const bases = new Map<string, AttachedKnowledgeBase | null>();
  await Promise.all(
    [...new Set(baseIds.values())].map(async (id) => {
      const base = await repos.knowledge.getBase(workspaceId, id);
      bases.set(id, base ? { id, ragUseCondition: base.ragUseCondition } : null);
    }),
  );
  const result = new Map<string, AttachedKnowledgeBase>();
  for (const [agentId, baseId] of baseIds) {
    const base = bases.get(baseId);
    if (base) result.set(agentId, base);
  }
  return result;
}

/**
 * The knowledge hook of a conversation session for `agent` (no base attached: none). The agent's
 * base is looked up at the first user turn, unless the caller read it already (`known`, null for
 * none), and kept for the conversation: a call's turns do not each read it again, and a base
 * attached during a call applies from the next conversation.
 */
export function knowledgeFor(repos: Repositories, agent: Agent, known?: AttachedKnowledgeBase | null) {
  let attached: Promise<AttachedKnowledgeBase | null> | null =
    known === undefined ? null : Promise.resolve(known);
  const baseOf = async () => {
    const baseId = await repos.knowledge.baseOfAgent(agent.workspaceId, agent.id);
    if (!baseId) return null;
    const base = await repos.knowledge.getBase(agent.workspaceId, baseId);
    return base ? { id: baseId, ragUseCondition: base.ragUseCondition } : null;
  };
  return async (query: string): Promise<string[]> => {
    attached ??= baseOf();
    let base;
    try {
      base = await attached;
    } catch (err) {
      attached = null; // a failed read is tried again at the next turn
      throw err;
    }
    if (!base || !ragConditionAllows(base.ragUseCondition, query)) return [];
    return (await retrieve(repos, agent.workspaceId, [base.id], query)).map((p) => p.text);
  };
}
