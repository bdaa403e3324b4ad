import { Type, type Static, type TObject } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Selectable } from 'kysely';
import {
  emptyActionConfig,
  keepValid,
  newId,
  storedActionConfigs,
  type ActionConfigs,
  type Clock,
  type KindConfig,
} from '../core/index.ts';
import type { Db } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { Action, ActionKind, Page } from './records.ts';
import type { ActionTable, AgentActionTable } from './schema.ts';
import { bumpAgentsVersion } from './workspaces.ts';

/**
 * Reads a configuration with `schema` (compiled once). One that fails the check (written before a
 * field was tightened, or by hand) keeps its valid fields; a field the kind requires that is
 * missing or invalid takes the kind's empty value (emptyActionConfig). A read never fails.
 */
function configReader<T extends TObject>(schema: T, empty: (name: string) => Static<T>) {
  const check = TypeCompiler.Compile(schema);
  const partial = Type.Partial(schema);
  return (value: unknown, name: string): Static<T> => {
    if (check.Check(value)) return value;
    return (
      keepValid(schema, value) ??
      keepValid(schema, { ...empty(name), ...keepValid(partial, value) }) ??
      empty(name)
    );
  };
}

const reader = <K extends ActionKind>(kind: K) =>
  configReader(storedActionConfigs[kind], (name) => emptyActionConfig(kind, name));

const READERS: { [K in ActionKind]: (value: unknown, name: string) => ActionConfigs[K] } = {
  REAL_TIME_BOOKING: reader('REAL_TIME_BOOKING'),
  INFORMATION_EXTRACTOR: reader('INFORMATION_EXTRACTOR'),
  LIVE_TRANSFER: reader('LIVE_TRANSFER'),
  SEND_SMS: reader('SEND_SMS'),
  INCALL_SMS: reader('INCALL_SMS'),
  INCALL_WHATSAPP: reader('INCALL_WHATSAPP'),
  CUSTOM_ACTION: reader('CUSTOM_ACTION'),
  CUSTOM_EVAL: reader('CUSTOM_EVAL'),
};

/**
 * The config column of an action of `kind` as its typed configuration, parsed once here so nothing
 * downstream casts it (the same rules as an agent's spec, src/store/agents.ts). `name` is the
 * action's name, for a configuration that lacks its own.
 */
export function parseActionConfig<K extends ActionKind>(
  kind: K,
  column: unknown,
  name: string,
): KindConfig<K> {
  let value: unknown;
  try {
    value = fromJson<unknown>(column);
  } catch {
    value = null;
  }
  return { kind, config: READERS[kind](value, name) };
}

function toAction(row: Selectable<ActionTable>): Action {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    ...parseActionConfig(row.kind as ActionKind, row.config, row.name),
    name: row.name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** When an attached action runs for that agent (the published attach body's `attachment_type`). */
export type AttachmentType = 'before' | 'during' | 'after';
export const ATTACHMENT_TYPES: readonly AttachmentType[] = ['before', 'during', 'after'];

/** How one of the action's input variables is filled for one agent (published shape, as given). */
export interface InputVariableMapping {
  variable_name: string;
  source: string;
  hardcoded_value?: string | null;
  llm_config?: { description?: string | null; example?: string | null; required?: boolean | null } | null;
}

/** A mapping with every published field (null where not given), as stored and as read. */
export function fullMapping(m: InputVariableMapping): Required<InputVariableMapping> {
  return {
    variable_name: m.variable_name,
    source: m.source,
    hardcoded_value: m.hardcoded_value ?? null,
    llm_config: m.llm_config
      ? {
          description: m.llm_config.description ?? null,
          example: m.llm_config.example ?? null,
          required: m.llm_config.required ?? null,
        }
      : null,
  };
}

/** One agent's settings of an attached action. */
export interface Attachment {
  attachmentType: AttachmentType;
  /** The agent's own "when to use it" condition; null: the action's own. */
  triggerCondition: string | null;
  inputVariablesMapping: InputVariableMapping[];
}

/** An action as attached to one agent. */
export type AttachedAction = Action & { attachment: Attachment };

/**
 * An attachment with settings. Absent fields keep what an existing attachment has (a new one gets
 * `during`, no condition, no mapping); an empty `triggerCondition` clears the condition.
 */
export interface NewAttachment {
  actionId: string;
  attachmentType?: AttachmentType;
  triggerCondition?: string | null;
  inputVariablesMapping?: InputVariableMapping[];
}

/** An agent an action is attached to. */
export interface ActionAgent {
  agentId: string;
  attachment: Attachment;
}

type AttachmentColumns = Pick<
  Selectable<AgentActionTable>,
  'attachment_type' | 'trigger_condition' | 'input_variables_mapping'
>;

function toAttachment(row: AttachmentColumns): Attachment {
  const type = row.attachment_type as AttachmentType;
  return {
    attachmentType: ATTACHMENT_TYPES.includes(type) ? type : 'during',
    triggerCondition: row.trigger_condition,
    inputVariablesMapping: fromJson<InputVariableMapping[]>(row.input_variables_mapping) ?? [],
  };
}

// Writes take the configuration the API accepted (src/api/actions checks it against the kind's
// input schema and rules); reads parse it into the kind's type.
export interface NewAction {
  kind: ActionKind;
  name: string;
  config: Record<string, unknown>;
}

/** The new name and configuration (the caller has merged them). */
export interface ActionPatch {
  name: string;
  config: Record<string, unknown>;
}

// Agent reads (include_actions=true) show attached actions and their configuration, so every write
// that can change such a read (attach, detach, and updating or deleting an attached action) bumps
// the workspace's agents version first, in the caller's transaction (see bumpAgentsVersion).
export function actionsRepo(db: Db, clock: Clock) {
  async function isAttached(workspaceId: string, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('agent_actions')
      .select('agent_id')
      .where('workspace_id', '=', workspaceId)
      .where('action_id', '=', id)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  return {
    async create(workspaceId: string, input: NewAction): Promise<Action> {
      const now = clock.now();
      const row = await db
        .insertInto('actions')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          kind: input.kind,
          name: input.name,
          config: toJson(input.config),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAction(row);
    },

    async get(workspaceId: string, id: string): Promise<Action | null> {
      const row = await db
        .selectFrom('actions')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toAction(row) : null;
    },

    /** The workspace's actions among `ids` (unknown ones are simply absent). */
    async findByIds(workspaceId: string, ids: string[]): Promise<Action[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('actions')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...new Set(ids)])
        .orderBy('seq')
        .execute();
      return rows.map(toAction);
    },

    /** Newest first. */
    async list(workspaceId: string, limit: number, offset: number): Promise<Page<Action>> {
      const base = db.selectFrom('actions').where('workspace_id', '=', workspaceId);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toAction), total: Number(count.n) };
    },

    /** Replaces name and config; null when the action is absent. */
    async update(workspaceId: string, id: string, patch: ActionPatch): Promise<Action | null> {
      if (await isAttached(workspaceId, id)) await bumpAgentsVersion(db, workspaceId);
      const row = await db
        .updateTable('actions')
        .set({ name: patch.name, config: toJson(patch.config), updated_at: clock.now() })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toAction(row) : null;
    },

    /** Deletes the action and detaches it from every agent; false when it is absent. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      if (await isAttached(workspaceId, id)) {
        await bumpAgentsVersion(db, workspaceId);
        await db
          .deleteFrom('agent_actions')
          .where('workspace_id', '=', workspaceId)
          .where('action_id', '=', id)
          .execute();
      }
      const result = await db
        .deleteFrom('actions')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * Attaches actions to an agent. A plain id attaches with the defaults and changes nothing when
     * already attached; a `NewAttachment` also sets what it gives on an existing attachment (its
     * place in the attachment order stays). The caller has checked that the agent and the actions
     * belong to the workspace.
     */
    async attach(
      workspaceId: string,
      agentId: string,
      actions: readonly (string | NewAttachment)[],
    ): Promise<void> {
      if (actions.length === 0) return;
      await bumpAgentsVersion(db, workspaceId);
      const now = clock.now();
      const row = (actionId: string) => ({
        workspace_id: workspaceId,
        agent_id: agentId,
        action_id: actionId,
        created_at: now,
        trigger_condition: null,
        input_variables_mapping: null,
      });
      const plain = [...new Set(actions.filter((a): a is string => typeof a === 'string'))];
      if (plain.length > 0) {
        await db
          .insertInto('agent_actions')
          .values(plain.map(row))
          .onConflict((oc) => oc.columns(['agent_id', 'action_id']).doNothing())
          .execute();
      }
      for (const item of actions) {
        if (typeof item === 'string') continue;
        const set: {
          attachment_type?: string;
          trigger_condition?: string | null;
          input_variables_mapping?: string | null;
        } = {};
        if (item.attachmentType !== undefined) set.attachment_type = item.attachmentType;
        if (item.triggerCondition !== undefined && item.triggerCondition !== null) {
          set.trigger_condition = item.triggerCondition === '' ? null : item.triggerCondition;
        }
        if (item.inputVariablesMapping !== undefined) {
          set.input_variables_mapping = toJson(item.inputVariablesMapping);
        }
        await db
          .insertInto('agent_actions')
          .values({ ...row(item.actionId), ...set })
          .onConflict((oc) =>
            Object.keys(set).length === 0
              ? oc.columns(['agent_id', 'action_id']).doNothing()
              : oc.columns(['agent_id', 'action_id']).doUpdateSet(set),
          )
          .execute();
      }
    },

    /** Detaches actions from an agent; answers how many were attached. */
    async detach(workspaceId: string, agentId: string, actionIds: string[]): Promise<number> {
      if (actionIds.length === 0) return 0;
      await bumpAgentsVersion(db, workspaceId);
      const result = await db
        .deleteFrom('agent_actions')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId)
        .where('action_id', 'in', [...new Set(actionIds)])
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Actions attached to each of the given agents, in the order they were attached. */
    async attachedTo(workspaceId: string, agentIds: string[]): Promise<Map<string, AttachedAction[]>> {
      const byAgent = new Map<string, AttachedAction[]>(agentIds.map((id) => [id, []]));
      if (agentIds.length === 0) return byAgent;
      const rows = await db
        .selectFrom('agent_actions as aa')
        .innerJoin('actions as a', 'a.id', 'aa.action_id')
        .selectAll('a')
        .select(['aa.agent_id', 'aa.attachment_type', 'aa.trigger_condition', 'aa.input_variables_mapping'])
        .where('aa.workspace_id', '=', workspaceId)
        // The action must be the workspace's too, whatever an attachment row says.
        .where('a.workspace_id', '=', workspaceId)
        .where('aa.agent_id', 'in', [...new Set(agentIds)])
        .orderBy('aa.created_at')
        .orderBy('a.seq')
        .execute();
      for (const row of rows) {
        byAgent.get(row.agent_id)?.push({ ...toAction(row), attachment: toAttachment(row) });
      }
      return byAgent;
    },

    /**
     * The agents an action is attached to, in the order they were attached, with their settings
     * (one query by the action's index).
     */
    async agentsOfAction(workspaceId: string, actionId: string): Promise<ActionAgent[]> {
      const rows = await db
        .selectFrom('agent_actions as aa')
        .innerJoin('agents as g', 'g.id', 'aa.agent_id')
        .select(['aa.agent_id', 'aa.attachment_type', 'aa.trigger_condition', 'aa.input_variables_mapping'])
        .where('aa.action_id', '=', actionId)
        .where('aa.workspace_id', '=', workspaceId)
        // The agent must be the workspace's too, whatever an attachment row says.
        .where('g.workspace_id', '=', workspaceId)
        .orderBy('aa.created_at')
        .orderBy('g.seq')
        .execute();
      return rows.map((row) => ({ agentId: row.agent_id, attachment: toAttachment(row) }));
    },
  };
}

export type ActionsRepo = ReturnType<typeof actionsRepo>;
