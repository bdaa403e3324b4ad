import { Type, type Static } from '@sinclair/typebox';
import {
  HttpUrl,
  NonEmptyString,
  Nullable,
  PaginationSchema,
  StringEnum,
  limitOffsetQuery,
} from '../schemas/common.ts';

// Knowledge bases and their sources (WIRE.md section 8). Responses carry Parley's own fields and,
// beside them, the fields of the published API a drop-in client reads (`id`, `name`,
// `content_preview`, `total_records`, `body` ...); see docs/api-notes.md "Knowledge bases".

/** Characters (Unicode code points) of a source's extracted text in `content_preview`. */
export const CONTENT_PREVIEW_CHARS = 200;

export const KnowledgeBaseIdParams = Type.Object({ knowledge_base_id: Type.String({ maxLength: 100 }) });
export const SourceIdParams = Type.Object({
  knowledge_base_id: Type.String({ maxLength: 100 }),
  source_id: Type.String({ maxLength: 100 }),
});

/** The published default page size of the knowledge-base list is 25. */
export const ListBasesQuery = Type.Object(limitOffsetQuery(25, 100));
/** The published default page size of the source list is 20; `name` filters by title. */
export const ListSourcesQuery = Type.Object({
  ...limitOffsetQuery(20, 100),
  name: Type.Optional(
    Type.String({
      maxLength: 500,
      description: 'Only sources whose name contains this text, whatever the case (empty: all).',
    }),
  ),
});
export const AttachQuery = Type.Object({ model_id: NonEmptyString(100, 'The agent to attach to.') });
export const DetachBody = Type.Object({ model_id: NonEmptyString(100, 'The agent to detach from.') });

const RagUseCondition = Type.String({
  maxLength: 4000,
  description: 'When the agent should consult the base.',
});

export const CreateBaseBody = Type.Object({
  name: NonEmptyString(200),
  rag_use_condition: Type.Optional(RagUseCondition),
});
export const UpdateBaseBody = Type.Object({
  name: Type.Optional(NonEmptyString(200)),
  rag_use_condition: Type.Optional(RagUseCondition),
});

const SourceType = StringEnum(['text', 'web', 'pdf'] as const);
const sourceFields = {
  title: Type.Optional(Type.String({ maxLength: 500, description: 'The source name.' })),
  name: Type.Optional(
    Type.String({ maxLength: 500, description: 'The source name (the published name of `title`).' }),
  ),
  content: Type.Optional(Type.String({ maxLength: 5 * 1024 * 1024, description: 'For type text.' })),
  url: Type.Optional(HttpUrl('For type web, and pdf without content_base64')),
  content_base64: Type.Optional(
    Type.String({ maxLength: 7 * 1024 * 1024, description: 'An uploaded PDF (type pdf), base64.' }),
  ),
};

/** Text up to 5 MB; an uploaded PDF up to 5 MB (as base64). The request body limit still applies. */
export const SourceBody = Type.Object({ type: SourceType, ...sourceFields });
export type SourceBodyT = Static<typeof SourceBody>;

/**
 * A source update: with `type`, the source is replaced as by a new one; without it (the published
 * form) the source keeps its type, and its name unless one is given; a name alone renames it.
 */
export const SourceUpdateBody = Type.Object({ type: Type.Optional(SourceType), ...sourceFields });
export type SourceUpdateBodyT = Static<typeof SourceUpdateBody>;

const baseFields = {
  knowledge_base_id: Type.String(),
  id: Type.String({ description: 'The same as knowledge_base_id (the published name).' }),
  name: Type.String(),
  rag_use_condition: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
};

export const KnowledgeBaseSchema = Type.Object(baseFields, { $id: 'KnowledgeBase' });

/** Create and update: the base, and a sentence saying what happened. */
export const BaseWithMessage = Type.Object({ ...baseFields, body: Type.String() });

/** Get: the base, and the same base as the one item of a list (the published read). */
export const BaseRead = Type.Object({
  ...baseFields,
  total_records: Type.Integer({ description: 'Always 1.' }),
  knowledge_bases: Type.Array(Type.Ref('KnowledgeBase')),
});

export const KnowledgeSourceSchema = Type.Object(
  {
    source_id: Type.String(),
    id: Type.String({ description: 'The same as source_id (the published name).' }),
    knowledge_base_id: Type.String(),
    type: Type.String(),
    title: Type.String(),
    name: Type.String({ description: 'The same as title (the published name).' }),
    url: Nullable(Type.String(), { description: 'null for text sources and uploaded PDFs.' }),
    content_preview: Type.String({
      description: `The first ${CONTENT_PREVIEW_CHARS} characters of the extracted text.`,
    }),
    status: Type.String(),
    error: Nullable(Type.String()),
    characters: Type.Integer({ description: 'Length of the extracted text (Unicode code points).' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { $id: 'KnowledgeSource' },
);

export const BasePage = Type.Object({
  pagination: PaginationSchema,
  total_records: Type.Integer({ description: 'The same as pagination.total_records.' }),
  knowledge_bases: Type.Array(Type.Ref('KnowledgeBase')),
});

export const SourcePage = Type.Object({
  pagination: PaginationSchema,
  total_records: Type.Integer({ description: 'The same as pagination.total_records.' }),
  knowledge_base_id: Type.String(),
  sources: Type.Array(Type.Ref('KnowledgeSource')),
});
