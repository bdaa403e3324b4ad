import {
  ActionRecorder,
  CollectedVariables,
  chatCallControl,
  createCustomActionTool,
  createLiveTransferTool,
  createInformationExtractorTool,
  runBeforeCall,
  type ActionTool,
  type ActionVariables,
  type CollectedVariable,
  type CustomActionConfig,
  type HttpPort,
  type InformationExtractorConfig,
  type LiveTransferConfig,
  type RecorderSnapshot,
} from '../../actions/index.ts';
import type { Clock } from '../../core/index.ts';
import { ToolRegistry, type SessionSnapshot } from '../../conversation/index.ts';
import type { Action, Chat } from '../../store/index.ts';

// A chat runs its agent's attached actions as tools. The run records (the recorder's snapshot)
// and the collected variables are stored in the chat's `state` next to the SessionSnapshot, so
// every turn continues them (attempt numbering goes on across messages).

/** What the action tools of one chat share. */
export interface ActionPorts {
  /** Outbound HTTP for custom actions (the safe fetch). */
  http: HttpPort;
  recorder: ActionRecorder;
  collected: CollectedVariables;
  /** Values for `{placeholders}` of custom actions: chat metadata and pre-call results. */
  variables: ActionVariables;
}

type ToolFactory = (action: Action, ports: ActionPorts) => ActionTool;

/** One line per action kind that runs in chats; kinds not listed here are skipped. */
const FACTORIES: Partial<Record<Action['kind'], ToolFactory>> = {
  INFORMATION_EXTRACTOR: (action, ports) =>
    createInformationExtractorTool(action.config as unknown as InformationExtractorConfig, {
      variables: ports.collected,
      recorder: ports.recorder,
      action_id: action.id,
    }),
  CUSTOM_ACTION: (action, ports) =>
    createCustomActionTool(action.config as unknown as CustomActionConfig, {
      http: ports.http,
      recorder: ports.recorder,
      variables: ports.variables,
      action_id: action.id,
    }),
  // A chat cannot transfer: the attempt is recorded as failed with `transfer_method_unsupported`
  // and the agent says the action's `failed_msg`.
  LIVE_TRANSFER: (action, ports) =>
    createLiveTransferTool(action.config as unknown as LiveTransferConfig, {
      callControl: chatCallControl,
      recorder: ports.recorder,
      action_id: action.id,
    }),
};

const isPreCall = (action: Action) =>
  action.kind === 'CUSTOM_ACTION' && action.config.run_action_before_call_start === true;

/**
 * The tools for `actions`: unknown kinds, pre-call custom actions (they ran when the chat was
 * created) and a second tool of an already used name are skipped.
 */
export function toolsForActions(actions: readonly Action[], ports: ActionPorts): ToolRegistry {
  const registry = new ToolRegistry();
  for (const action of actions) {
    const factory = FACTORIES[action.kind];
    if (!factory || isPreCall(action)) continue;
    const tool = factory(action, ports);
    if (registry.get(tool.spec.name) || tool.spec.name === 'end_call') continue;
    registry.register(tool);
  }
  return registry;
}

/** The chat's stored `state`: the session snapshot plus, since actions run in chats, these. */
export interface ChatActionState {
  /** The recorder's snapshot (absent in rows written before actions ran in chats). */
  actions?: RecorderSnapshot;
  /** Every declared or collected variable (CollectedVariables.snapshot()). */
  collected_variables?: Record<string, CollectedVariable>;
  /** Variables the pre-call actions produced, for the prompt on every turn. */
  action_variables?: ActionVariables;
}

export type StoredChatState = SessionSnapshot & ChatActionState;

/** The action part of a stored state, tolerant of old rows. */
export function actionStateOf(chat: Pick<Chat, 'state'>): Required<ChatActionState> {
  const state = (chat.state ?? {}) as ChatActionState;
  return {
    actions: state.actions ?? { executed_actions: {}, action_execution_timeline: [] },
    collected_variables: state.collected_variables ?? {},
    action_variables: state.action_variables ?? {},
  };
}

/** The live action state of one chat for one request. */
export interface ChatActions {
  /** The agent's attached actions. */
  actions: readonly Action[];
  tools: ToolRegistry;
  recorder: ActionRecorder;
  collected: CollectedVariables;
  /** Pre-call results, added to the session's variables. */
  actionVariables: ActionVariables;
  /** Adds pre-call results: for the prompt and for the placeholders of later custom actions. */
  addVariables(values: ActionVariables): void;
  /** The action part of the state to store. */
  state(): Required<ChatActionState>;
}

export interface ChatActionsOptions {
  chatId: string;
  agentId: string;
  workspaceId: string;
  actions: readonly Action[];
  http: HttpPort;
  /** Chat metadata as placeholder values. */
  variables: ActionVariables;
  clock: Clock;
  stored?: Required<ChatActionState>;
}

export function chatActions(options: ChatActionsOptions): ChatActions {
  const stored = options.stored;
  const recorder = new ActionRecorder(
    { call_id: options.chatId, model_id: options.agentId, workspace_id: options.workspaceId },
    { clock: options.clock, ...(stored ? { snapshot: stored.actions } : {}) },
  );
  const collected = new CollectedVariables({ initial: stored?.collected_variables ?? {} });
  const actionVariables: ActionVariables = { ...(stored?.action_variables ?? {}) };
  const ports: ActionPorts = {
    http: options.http,
    recorder,
    collected,
    variables: { ...options.variables, ...actionVariables },
  };
  const tools = toolsForActions(options.actions, ports);
  return {
    actions: options.actions,
    tools,
    recorder,
    collected,
    actionVariables,
    addVariables(values) {
      Object.assign(actionVariables, values);
      Object.assign(ports.variables, values);
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
 * variables of the ones before; answers the variables they produced (failed runs add none and
 * are recorded as failed).
 */
export async function runPreCallActions(
  actions: readonly Action[],
  deps: { http: HttpPort; recorder: ActionRecorder; variables: ActionVariables },
): Promise<ActionVariables> {
  const produced: ActionVariables = {};
  for (const action of actions) {
    if (!isPreCall(action)) continue;
    const result = await runBeforeCall(action.config as unknown as CustomActionConfig, {
      http: deps.http,
      recorder: deps.recorder,
      variables: { ...deps.variables, ...produced },
      action_id: action.id,
    });
    Object.assign(produced, result.variables);
  }
  return produced;
}

/** The action fields of the chat record (`collected_variables` is null when none is collected). */
export function presentChatActions(chat: Pick<Chat, 'state'>) {
  const state = actionStateOf(chat);
  const collected = new CollectedVariables({ initial: state.collected_variables }).collected();
  return {
    executed_actions: state.actions.executed_actions,
    action_execution_timeline: state.actions.action_execution_timeline,
    collected_variables: Object.keys(collected).length > 0 ? collected : null,
  };
}
