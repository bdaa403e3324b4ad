import {
  ActionRecorder,
  CollectedVariables,
  createCustomActionTool,
  createInCallSmsTool,
  createInCallWhatsAppTool,
  createInformationExtractorTool,
  createLiveTransferTool,
  createRealTimeBookingTools,
  customActionForAttachment,
  runBeforeCall,
  type ActionTool,
  type ActionVariables,
  type CallControlPort,
  type CalendarPort,
  type CollectedVariable,
  type CustomActionConfig,
  type MessagingPort,
  type RecorderSnapshot,
  type ReplyPort,
} from '../actions/index.ts';
import type { Clock, HttpPort } from '../core/index.ts';
import { ToolRegistry } from '../conversation/index.ts';
import type { Action, ActionOf, Attachment } from '../store/index.ts';

// An agent's attached actions as the tools of one conversation (chat, call or simulation), with
// the records of what ran. The records (the recorder's snapshot) and the collected variables are
// kept with the conversation, so a conversation that continues later (a chat's next message)
// continues them: attempt numbering goes on.

/** Who the conversation is with, for the messaging kinds (E.164; absent when unknown). */
export interface ConversationParty {
  /** Our number: the agent's number on a call, the workspace's number on an SMS chat. */
  ourNumber?: string;
  /** The lead's number. */
  leadNumber?: string;
}

/** The effects actions need; the composition root (or a test) provides them. */
export interface ActionEffects {
  /** Outbound HTTP for custom actions (the safe fetch). */
  http: HttpPort;
  /** The lead can be called or messaged only through these; absent: those actions fail. */
  messaging?: MessagingPort;
  replies?: ReplyPort;
  /** Transfers: the carrier's call control; chats pass `chatCallControl`. */
  callControl: CallControlPort;
  /** The calendar of a REAL_TIME_BOOKING action (see calendar.ts). */
  calendarFor: (action: ActionOf<'REAL_TIME_BOOKING'>) => CalendarPort;
  clock: Clock;
  /** A summary of the conversation so far (a warm transfer with context); set once it runs. */
  summarize?: (prompt: string | undefined) => Promise<string>;
}

/** What the action tools of one conversation share. */
interface ToolPorts {
  effects: ActionEffects;
  party: ConversationParty;
  recorder: ActionRecorder;
  collected: CollectedVariables;
  /** Values for `{placeholders}`: metadata, the lead's variables and pre-call results. */
  variables: ActionVariables;
}

const messagingDeps = (action: Action, ports: ToolPorts) => ({
  messaging: ports.effects.messaging ?? noMessaging,
  ...(ports.effects.replies ? { replies: ports.effects.replies } : {}),
  from: ports.party.ourNumber ?? '',
  to: ports.party.leadNumber ?? '',
  recorder: ports.recorder,
  variables: ports.variables,
  action_id: action.id,
  clock: ports.effects.clock,
});

/** Sending fails with a reason the timeline shows when no messaging provider is wired. */
export const noMessaging: MessagingPort = {
  send: async () => {
    throw new Error('messaging_unavailable: no SMS/WhatsApp provider is configured');
  },
};

/**
 * The tools of one action, a case per kind that runs as tools; SEND_SMS and CUSTOM_EVAL run
 * after the conversation (finish.ts) and offer no tool.
 */
function toolsOf(action: Action, ports: ToolPorts): ActionTool[] {
  switch (action.kind) {
    case 'INFORMATION_EXTRACTOR':
      return [
        createInformationExtractorTool(action.config, {
          variables: ports.collected,
          recorder: ports.recorder,
          action_id: action.id,
        }),
      ];
    case 'CUSTOM_ACTION':
      return [
        createCustomActionTool(customConfigOf(action), {
          http: ports.effects.http,
          recorder: ports.recorder,
          variables: ports.variables,
          action_id: action.id,
        }),
      ];
    case 'LIVE_TRANSFER':
      return [
        createLiveTransferTool(action.config, {
          callControl: ports.effects.callControl,
          recorder: ports.recorder,
          action_id: action.id,
          clock: ports.effects.clock,
          summarize: (prompt) => ports.effects.summarize?.(prompt) ?? Promise.resolve(''),
        }),
      ];
    case 'REAL_TIME_BOOKING': {
      const tools = createRealTimeBookingTools(action.config, {
        calendar: ports.effects.calendarFor(action),
        recorder: ports.recorder,
        clock: ports.effects.clock,
        action_id: action.id,
      });
      return [tools.availability, tools.book];
    }
    case 'INCALL_SMS':
      return [createInCallSmsTool(action.config, messagingDeps(action, ports))];
    case 'INCALL_WHATSAPP':
      return [createInCallWhatsAppTool(action.config, messagingDeps(action, ports))];
    case 'SEND_SMS':
    case 'CUSTOM_EVAL':
      return [];
  }
}

/**
 * A custom action's configuration for the agent it is attached to: the attachment's settings
 * (`before`, its trigger condition, its variable mapping) applied when the action came with them
 * (the store's attached actions do).
 */
export function customConfigOf(
  action: ActionOf<'CUSTOM_ACTION'> & { attachment?: Attachment },
): CustomActionConfig {
  return action.attachment ? customActionForAttachment(action.config, action.attachment) : action.config;
}

export const isPreCall = (action: Action) =>
  action.kind === 'CUSTOM_ACTION' && customConfigOf(action).run_action_before_call_start === true;

/**
 * The tools for `actions`: kinds without tools, pre-call custom actions (they run before the
 * greeting) and a second tool of an already used name are skipped.
 */
function toolsForActions(actions: readonly Action[], ports: ToolPorts): ToolRegistry {
  const registry = new ToolRegistry();
  for (const action of actions) {
    if (isPreCall(action)) continue;
    for (const tool of toolsOf(action, ports)) {
      if (registry.get(tool.spec.name) || tool.spec.name === 'end_call') continue;
      registry.register(tool);
    }
  }
  return registry;
}

/** The action part of a conversation's stored state. */
export interface ActionState {
  /** The recorder's snapshot (absent in rows written before actions ran). */
  actions?: RecorderSnapshot;
  /** Every declared or collected variable (CollectedVariables.snapshot()). */
  collected_variables?: Record<string, CollectedVariable>;
  /** Variables the pre-call actions produced, for the prompt on every turn. */
  action_variables?: ActionVariables;
}

/** The action part of a stored state, tolerant of old rows. */
export function actionStateOf(state: unknown): Required<ActionState> {
  const s = (state ?? {}) as ActionState;
  return {
    actions: s.actions ?? { executed_actions: {}, action_execution_timeline: [] },
    collected_variables: s.collected_variables ?? {},
    action_variables: s.action_variables ?? {},
  };
}

/** The live action state of one conversation. */
export interface ConversationActions {
  /** The agent's attached actions. */
  actions: readonly Action[];
  tools: ToolRegistry;
  recorder: ActionRecorder;
  collected: CollectedVariables;
  /** Pre-call results, added to the session's variables. */
  actionVariables: ActionVariables;
  party: ConversationParty;
  /** Placeholder values (metadata, lead variables, pre-call results). */
  variables: ActionVariables;
  /** Adds pre-call results: for the prompt and for the placeholders of later actions. */
  addVariables(values: ActionVariables): void;
  /** The action part of the state to store. */
  state(): Required<ActionState>;
}

export interface ConversationActionsOptions {
  /** The chat or call id the records carry as `call_id`. */
  conversationId: string;
  agentId: string;
  workspaceId: string;
  actions: readonly Action[];
  effects: ActionEffects;
  party?: ConversationParty;
  /** Placeholder values (chat metadata, call variables). */
  variables: ActionVariables;
  stored?: Required<ActionState>;
}

export function conversationActions(options: ConversationActionsOptions): ConversationActions {
  const stored = options.stored;
  const recorder = new ActionRecorder(
    { call_id: options.conversationId, model_id: options.agentId, workspace_id: options.workspaceId },
    { clock: options.effects.clock, ...(stored ? { snapshot: stored.actions } : {}) },
  );
  const collected = new CollectedVariables({ initial: stored?.collected_variables ?? {} });
  const actionVariables: ActionVariables = { ...(stored?.action_variables ?? {}) };
  const party = options.party ?? {};
  const variables: ActionVariables = { ...options.variables, ...actionVariables };
  const tools = toolsForActions(options.actions, {
    effects: options.effects,
    party,
    recorder,
    collected,
    variables,
  });
  return {
    actions: options.actions,
    tools,
    recorder,
    collected,
    actionVariables,
    party,
    variables,
    addVariables(values) {
      Object.assign(actionVariables, values);
      Object.assign(variables, values);
    },
    state: () => ({
      actions: recorder.snapshot(),
      collected_variables: collected.snapshot(),
      action_variables: { ...actionVariables },
    }),
  };
}

/**
 * Runs the pre-call custom actions (`run_action_before_call_start`) in order, each seeing the
 * variables of the ones before, and adds what they produce to `actions` (failed runs add none
 * and are recorded as failed).
 */
export async function runPreCallActions(actions: ConversationActions, http: HttpPort): Promise<void> {
  for (const action of actions.actions) {
    if (action.kind !== 'CUSTOM_ACTION' || !isPreCall(action)) continue;
    const result = await runBeforeCall(customConfigOf(action), {
      http,
      recorder: actions.recorder,
      variables: { ...actions.variables },
      action_id: action.id,
    });
    actions.addVariables(result.variables);
  }
}

/** The action fields of a conversation record (`collected_variables` null when none collected). */
export function presentActions(state: unknown) {
  const s = actionStateOf(state);
  const collected = new CollectedVariables({ initial: s.collected_variables }).collected();
  return {
    executed_actions: s.actions.executed_actions,
    action_execution_timeline: s.actions.action_execution_timeline,
    collected_variables: Object.keys(collected).length > 0 ? collected : null,
  };
}
