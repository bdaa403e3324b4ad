import { Type, type Static } from '@sinclair/typebox';
import {
  HttpUrl,
  NonEmptyString,
  PaginationSchema,
  StringEnum,
  limitOffsetQuery,
} from '../schemas/common.ts';

// Knowledge bases and their sources (WIRE.md section 8).

export const KnowledgeBaseIdParams = Type.Object({ knowledge_base_id: Type.String({ maxLength: 100 }) });
export const SourceIdParams = Type.Object({
  knowledge_base_id: Type.String({ maxLength: 100 }),
  source_id: Type.String({ maxLength: 100 }),
});

export const ListBasesQuery = Type.Object(limitOffsetQuery(20, 100));
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

/** Text up to 5 MB; an uploaded PDF up to 5 MB (as base64). The request body limit still applies. */
export const SourceBody = Type.Object({
  type: StringEnum(['text', 'web', 'pdf'] as const),
  title: Type.Optional(Type.String({ maxLength: 500 })),
  content: Type.Optional(Type.String({ maxLength: 5 * 1024 * 1024, description: 'For type text.' })),
  url: Type.Optional(HttpUrl('For type web, and pdf without content_base64')),
  content_base64: Type.Optional(
    Type.String({ maxLength: 7 * 1024 * 1024, description: 'An uploaded PDF (type pdf), base64.' }),
  ),
});
export type SourceBodyT = Static<typeof SourceBody>;

export const KnowledgeBaseSchema = Type.Object(
  {
    knowledge_base_id: Type.String(),
    name: Type.String(),
    rag_use_condition: Type.String(),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { $id: 'KnowledgeBase' },
);

export const KnowledgeSourceSchema = Type.Object(
  {
    source_id: Type.String(),
    knowledge_base_id: Type.String(),
    type: Type.String(),
    title: Type.String(),
    url: Type.Union([Type.String(), Type.Null()]),
    status: Type.String(),
    error: Type.Union([Type.String(), Type.Null()]),
    characters: Type.Integer({ description: 'Length of the extracted text.' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { $id: 'KnowledgeSource' },
);

export const BasePage = Type.Object({
  pagination: PaginationSchema,
  knowledge_bases: Type.Array(Type.Ref('KnowledgeBase')),
});
