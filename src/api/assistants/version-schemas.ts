import { Type } from '@sinclair/typebox';
import { NonEmptyString, PaginationSchema, limitOffsetQuery } from '../schemas/common.ts';

// Agent versions (a Parley extension: the vendor keeps versions in its dashboard only).

export const VersionParams = Type.Object({
  model_id: NonEmptyString(100),
  version_id: NonEmptyString(100),
});

export const PublishBody = Type.Union(
  [
    Type.Object({
      description: Type.Optional(
        Type.String({ maxLength: 1000, description: 'A note on what this version changes.' }),
      ),
    }),
    Type.Null(),
  ],
  { description: 'Optional.' },
);

export const ListVersionsQuery = Type.Object(limitOffsetQuery(20, 100));

const REF = '`draft`, `live` (the live version; the draft while never published), or a version UUID.';

export const DiffQuery = Type.Object({
  from: Type.String({ maxLength: 100, default: 'live', description: `${REF} Default \`live\`.` }),
  to: Type.String({ maxLength: 100, default: 'draft', description: `${REF} Default \`draft\`.` }),
});

export const VersionSummary = Type.Object({
  version_id: Type.String(),
  model_id: Type.String(),
  number: Type.Integer({ description: '1 for the first version of the agent, then 2, 3 ...' }),
  description: Type.Union([Type.String(), Type.Null()]),
  is_live: Type.Boolean({ description: 'New calls, chats and simulations run this version.' }),
  created_at: Type.String({ format: 'date-time' }),
});

const SnapshotAction = Type.Object({
  action_id: Type.String(),
  action_type: Type.String(),
  name: Type.String(),
  config: Type.Object({}, { additionalProperties: true }),
  attachment_type: Type.String(),
  trigger_condition: Type.Union([Type.String(), Type.Null()]),
  input_variables_mapping: Type.Array(Type.Object({}, { additionalProperties: true })),
});

export const Snapshot = Type.Object(
  {
    type: Type.String(),
    name: Type.String(),
    actions: Type.Array(SnapshotAction),
    knowledge_bases: Type.Array(Type.Object({ knowledge_base_id: Type.String() }), {
      description: 'The bases consulted; their sources are live data, not part of the version.',
    }),
  },
  {
    additionalProperties: true,
    description: "The agent's fields as accepted on create (`agent`, `max_duration` ...), plus these.",
  },
);

export const VersionRead = Type.Object({ ...VersionSummary.properties, snapshot: Snapshot });

export const VersionPage = Type.Object({
  pagination: PaginationSchema,
  live_version_id: Type.Union([Type.String(), Type.Null()], {
    description: 'null: never published (the draft is live).',
  }),
  versions: Type.Array(VersionSummary),
});

export const RestoreResponse = Type.Object({
  model_id: Type.String(),
  restored_version_id: Type.String(),
  missing_action_ids: Type.Array(Type.String(), {
    description: 'Actions of the version deleted since: not attached again.',
  }),
  missing_knowledge_base_ids: Type.Array(Type.String(), {
    description: 'Knowledge bases of the version deleted since: not attached again.',
  }),
});

export const LiveResponse = Type.Object({ model_id: Type.String(), live_version_id: Type.String() });

const Side = Type.Object({
  ref: Type.String({ description: 'As asked: `draft`, `live` or a version id.' }),
  version_id: Type.Union([Type.String(), Type.Null()], { description: 'null: the draft.' }),
});

export const DiffResponse = Type.Object({
  from: Side,
  to: Side,
  changes: Type.Array(
    Type.Object({
      path: Type.String({ description: '`agent.prompt`, `actions[<id>]`, `actions[<id>].config.url` ...' }),
      from: Type.Unknown(),
      to: Type.Unknown(),
    }),
  ),
});
