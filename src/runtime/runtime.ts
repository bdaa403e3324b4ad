import type { CallControlPort, MessagingPort } from '../actions/index.ts';
import { chatCallControl } from '../actions/index.ts';
import type { Clock, HttpPort } from '../core/index.ts';
import {
  ConversationSession,
  analyzeConversation,
  type Analysis,
  type AgentConversationConfig,
  type SessionSnapshot,
  type Variables,
} from '../conversation/index.ts';
import type { ModelChoice, ModelRouter } from '../providers/index.ts';
import type { Action, Agent, Repositories, Workspace } from '../store/index.ts';
import {
  actionStateOf,
  conversationActions,
  runPreCallActions,
  type ActionEffects,
  type ConversationActions,
  type ConversationParty,
} from './actions.ts';
import { calendarResolver, fetchThrough, type CalendarResolver } from './calendar.ts';
import { finishConversation } from './finish.ts';
import { knowledgeFor, type AttachedKnowledgeBase } from './knowledge.ts';
import type { ReplyHub } from './replies.ts';
import { prepareRun } from './versions.ts';
import { summarizeCall } from './summary.ts';

// An agent brought to life for one conversation, the same way for chats, calls and simulations:
// its model (routed by plan), its variables, its attached actions as tools with their effects,
// its knowledge base, and what runs when the conversation is over.

export interface AgentRuntimeOptions {
  repos: Repositories;
  models: ModelRouter;
  clock: Clock;
  /** Outbound HTTP of custom actions and Cal.com (the safe fetch). */
  http: HttpPort;
  /** Messaging actions send through this (a workspace's numbers); absent: they fail. */
  messagingFor?: (workspaceId: string) => MessagingPort;
  replies?: ReplyHub;
  /** Default: the builtin calendar in `repos`, Cal.com through `http`. */
  calendars?: CalendarResolver;
}

export interface ConversationSetup {
  /** The chat or call id (the action records' `call_id`). */
  conversationId: string;
  agent: Agent;
  workspace: Workspace;
  /** Placeholder values: metadata, custom variables, lead fields. */
  variables: Variables;
  /** 'voice' for calls (`bot:`/`human:` transcript), 'chat' for chats. */
  style: 'chat' | 'voice';
  party?: ConversationParty;
  /** Default: transfers fail with `transfer_method_unsupported` (chats). */
  callControl?: CallControlPort;
  /** Agent settings of this conversation only (a call's `prompt` or `greeting`). */
  overrides?: Partial<AgentConversationConfig>;
  /** The stored state of a conversation that continues. */
  stored?: { snapshot: SessionSnapshot; state: unknown };
  /**
   * The agent's attached actions, when the caller loaded them already (an admission of many
   * calls of one agent loads them once); otherwise they are read here.
   */
  attachedActions?: readonly Action[];
  /** The agent's knowledge base (null: none), when the caller read it already (as above). */
  knowledgeBase?: AttachedKnowledgeBase | null;
  /**
   * A published version of the agent to run (its config, actions and knowledge base), read here
   * unless the caller gave `attachedActions` (it read the version already); absent or null: the
   * agent as given.
   */
  agentVersionId?: string | null;
}

export interface Conversation {
  session: ConversationSession;
  /** The agent's settings for this conversation (its overrides applied). */
  config: AgentConversationConfig;
  actions: ConversationActions;
  model: ModelChoice;
  /** The effects its actions use (for `finish`). */
  effects: ActionEffects;
}

export interface AgentRuntime {
  /** The agent's attached actions as tools, continuing stored records when given. */
  actions(setup: ConversationSetup): Promise<{ actions: ConversationActions; effects: ActionEffects }>;
  /**
   * A conversation's session (not started for a new one). A new conversation runs its pre-call
   * custom actions first; their results feed the prompt and greeting.
   */
  open(setup: ConversationSetup): Promise<Conversation>;
  /** After the end: the final extraction pass, SEND_SMS actions and CUSTOM_EVAL questions. */
  finish(conversation: Conversation, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * A call's post-call analysis (after `finish`): the model judges the conversation, or the
   * builtin heuristic does. Never rejects: a failed judge falls back to the heuristic.
   */
  analyze(conversation: Conversation, ending: CallEnding): Promise<Analysis>;
}

/** How a call ended, as the analysis reads it. */
export interface CallEnding {
  endCallReason: string;
  customEndCallReason: string | null;
  answeredBy: 'human' | 'machine' | null;
}

export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  const { repos, models, clock, http } = options;
  const calendars = options.calendars ?? calendarResolver({ repos, fetch: fetchThrough(http) });

  async function actions(setup: ConversationSetup) {
    const { agent } = setup;
    const attached = (
      setup.attachedActions ??
      (await repos.actions.attachedTo(agent.workspaceId, [agent.id])).get(agent.id) ??
      []
    ).filter((action) => action.workspaceId === agent.workspaceId);
    const effects: ActionEffects = {
      http,
      ...(options.messagingFor ? { messaging: options.messagingFor(agent.workspaceId) } : {}),
      ...(options.replies ? { replies: options.replies } : {}),
      callControl: setup.callControl ?? chatCallControl,
      calendarFor: (action) => calendars(action, agent.id),
      clock,
    };
    const made = conversationActions({
      conversationId: setup.conversationId,
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      actions: attached,
      effects,
      ...(setup.party ? { party: setup.party } : {}),
      variables: setup.variables,
      ...(setup.stored ? { stored: actionStateOf(setup.stored.state) } : {}),
    });
    return { actions: made, effects };
  }

  /** The setup with its version's agent, actions and knowledge base in place. */
  async function versioned(setup: ConversationSetup): Promise<ConversationSetup> {
    if (!setup.agentVersionId || setup.attachedActions !== undefined) return setup;
    const run = await prepareRun(repos, setup.agent, setup.agentVersionId);
    if (!run.agent) throw new Error(`agent version ${setup.agentVersionId} no longer exists`);
    return {
      ...setup,
      agent: run.agent,
      attachedActions: run.attachedActions,
      knowledgeBase: run.knowledgeBase,
    };
  }

  async function open(given: ConversationSetup): Promise<Conversation> {
    const setup = await versioned(given);
    const { actions: made, effects } = await actions(setup);
    if (!setup.stored) await runPreCallActions(made, http);
    const config = { ...setup.agent.spec.agent, ...setup.overrides };
    const model = models.route(config.llm, setup.workspace.plan);
    const session = new ConversationSession(
      {
        agent: config,
        llm: model.llm,
        model: model.model,
        variables: { ...setup.variables, ...made.actionVariables },
        style: setup.style,
        clock,
        tools: made.tools,
        knowledge: knowledgeFor(repos, setup.agent, setup.knowledgeBase),
      },
      setup.stored?.snapshot,
    );
    effects.summarize = (prompt) =>
      summarizeCall({
        llm: model.llm,
        ...(model.model ? { model: model.model } : {}),
        transcript: session.transcript(),
        clock,
        ...(prompt ? { prompt } : {}),
      });
    return { session, config, actions: made, model, effects };
  }

  async function finish(conversation: Conversation, finishOptions: { signal?: AbortSignal } = {}) {
    await finishConversation({
      actions: conversation.actions,
      effects: conversation.effects,
      transcript: conversation.session.transcript(),
      llm: conversation.model.llm,
      ...(conversation.model.model ? { model: conversation.model.model } : {}),
      ...(finishOptions.signal ? { signal: finishOptions.signal } : {}),
    });
  }

  async function analyze(conversation: Conversation, ending: CallEnding): Promise<Analysis> {
    const { session } = conversation;
    const result = await analyzeConversation(
      {
        agent: conversation.config,
        turns: session.turns,
        endCallReason: ending.endCallReason,
        customEndCallReason: ending.customEndCallReason,
        answeredBy: ending.answeredBy,
        collectedVariables: conversation.actions.collected.collected(),
        actions: conversation.actions.recorder.timeline
          .filter((t) => t.status !== 'started')
          .map((t) => ({ name: t.name, action_type: t.action_type, success: t.status === 'success' })),
      },
      {
        llm: conversation.model.llm,
        ...(conversation.model.model ? { model: conversation.model.model } : {}),
        clock,
      },
    );
    return result.analysis;
  }

  return { actions, open, finish, analyze };
}
