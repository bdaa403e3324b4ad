import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { AgentSpec } from '../core/index.ts';
import { parseActionConfig, type AttachedAction } from './actions.ts';
import { parseAgentSpec } from './agents.ts';
import { fromJson } from './json.ts';
import { ACTION_KINDS } from './records.ts';

// What a published agent version holds: the agent's config, its attached actions as they were
// (definitions and attachment settings), and which knowledge bases it consults. The bases'
// contents are live data: a version names a base, it does not copy its sources.

/** A knowledge base attachment of a version (the agent table holds no other settings for it). */
export interface SnapshotKnowledgeBase {
  id: string;
}

export interface AgentSnapshot {
  type: string;
  name: string;
  spec: AgentSpec;
  /** In attachment order, with the definitions as they were at publishing. */
  actions: AttachedAction[];
  knowledgeBases: SnapshotKnowledgeBase[];
}

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const StoredMapping = Type.Object({
  variable_name: Type.String(),
  source: Type.String(),
  hardcoded_value: Type.Optional(Nullable(Type.String())),
  llm_config: Type.Optional(
    Type.Union([
      Type.Object({
        description: Type.Optional(Nullable(Type.String())),
        example: Type.Optional(Nullable(Type.String())),
        required: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      }),
      Type.Null(),
    ]),
  ),
});

const StoredAction = Type.Object({
  id: Type.String(),
  kind: Type.Union(ACTION_KINDS.map((k) => Type.Literal(k))),
  name: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
  attachment: Type.Object({
    attachmentType: Type.Union([Type.Literal('before'), Type.Literal('during'), Type.Literal('after')]),
    triggerCondition: Nullable(Type.String()),
    inputVariablesMapping: Type.Array(StoredMapping),
  }),
});

const StoredBase = Type.Object({ id: Type.String() });

const storedAction = TypeCompiler.Compile(StoredAction);
const storedBase = TypeCompiler.Compile(StoredBase);

/** The stored form: the snapshot without the workspace (the row has it). */
export function snapshotToJson(snapshot: AgentSnapshot): string {
  return JSON.stringify({
    type: snapshot.type,
    name: snapshot.name,
    spec: snapshot.spec,
    actions: snapshot.actions.map(
      ({ id, kind, name, config, createdAt, updatedAt, attachment }): Static<typeof StoredAction> => ({
        id,
        kind,
        name,
        config,
        createdAt,
        updatedAt,
        attachment,
      }),
    ),
    knowledgeBases: snapshot.knowledgeBases,
  });
}

const StoredSnapshot = Type.Object({
  type: Type.String(),
  name: Type.String(),
  spec: Type.Unknown(),
  actions: Type.Array(Type.Unknown()),
  knowledgeBases: Type.Array(Type.Unknown()),
});
const storedSnapshot = TypeCompiler.Compile(StoredSnapshot);

/**
 * The snapshot column as a typed AgentSnapshot, parsed once here. Parley writes it, so a part that
 * fails the check (edited by hand) is left out rather than failing the read. The actions'
 * configurations are parsed by their kinds as the actions table's are (parseActionConfig).
 */
export function parseSnapshot(column: unknown, workspaceId: string): AgentSnapshot {
  let value: unknown;
  try {
    value = fromJson<unknown>(column);
  } catch {
    value = null;
  }
  if (!storedSnapshot.Check(value)) return { type: '', name: '', spec: {}, actions: [], knowledgeBases: [] };
  return {
    type: value.type,
    name: value.name,
    spec: parseAgentSpec(value.spec ?? null),
    actions: value.actions
      .filter((a): a is Static<typeof StoredAction> => storedAction.Check(a))
      .map((a) => ({ ...a, ...parseActionConfig(a.kind, a.config, a.name), workspaceId })),
    knowledgeBases: value.knowledgeBases
      .filter((b): b is Static<typeof StoredBase> => storedBase.Check(b))
      .map((b) => ({ id: b.id })),
  };
}
