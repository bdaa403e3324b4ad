import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, notFound, toIso } from '../../core/index.ts';
import {
  MAX_SOURCE_BYTES,
  SourceError,
  fetchSource,
  htmlTitle,
  htmlToText,
  ingestSource,
  pdfToText,
  reingestSource,
} from '../../knowledge/index.ts';
import type { KnowledgeBase, KnowledgeSource, NewKnowledgeSource, Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  AttachQuery,
  BasePage,
  CreateBaseBody,
  DetachBody,
  KnowledgeBaseIdParams,
  ListBasesQuery,
  SourceBody,
  SourceIdParams,
  UpdateBaseBody,
  type SourceBodyT,
} from './schemas.ts';

const TAG = ['Knowledge bases'];

const baseNotFound = (id: string) => notFound(`knowledge base ${id} not found`);
const sourceNotFound = (id: string) => notFound(`source ${id} not found`);

function presentBase(b: KnowledgeBase) {
  return {
    knowledge_base_id: b.id,
    name: b.name,
    rag_use_condition: b.ragUseCondition,
    created_at: toIso(b.createdAt),
    updated_at: toIso(b.updatedAt),
  };
}

function presentSource(s: KnowledgeSource) {
  return {
    source_id: s.id,
    knowledge_base_id: s.knowledgeBaseId,
    type: s.type,
    title: s.title,
    url: s.url,
    status: s.status,
    error: s.error,
    characters: s.content.length,
    created_at: toIso(s.createdAt),
    updated_at: toIso(s.updatedAt),
  };
}

const bad = (message: string, field: string) => invalidInput(message, ['body', field], 'source');

/**
 * Turns a source body into the text to store: `text` as given, `web` fetched and converted from
 * HTML, `pdf` fetched (or decoded from `content_base64`) and its text extracted. Any failure is a
 * 400 naming the problem, and nothing is stored.
 */
async function resolveSource(body: SourceBodyT, allowPrivateNetwork: boolean): Promise<NewKnowledgeSource> {
  const title = body.title?.trim() ?? '';
  try {
    switch (body.type) {
      case 'text': {
        if (body.content === undefined || body.content.trim() === '') {
          throw bad('body.content is required for a text source', 'content');
        }
        return { type: 'text', title, url: null, content: body.content };
      }
      case 'web': {
        if (body.url === undefined) throw bad('body.url is required for a web source', 'url');
        const page = await fetchSource(body.url, { allowPrivateNetwork });
        const type = page.contentType.toLowerCase();
        if (type !== '' && !/html|text\/plain|xml/.test(type)) {
          throw new SourceError(`${body.url} is not a web page (content type ${page.contentType})`);
        }
        const html = page.body.toString('utf8');
        const content = /text\/plain/.test(type) ? html : htmlToText(html);
        if (content.trim() === '') throw new SourceError(`${body.url} has no readable text`);
        return { type: 'web', title: title || htmlTitle(html) || body.url, url: body.url, content };
      }
      case 'pdf': {
        let bytes: Uint8Array;
        let what: string;
        if (body.content_base64 !== undefined) {
          const buf = Buffer.from(body.content_base64, 'base64');
          if (buf.length > MAX_SOURCE_BYTES) {
            throw bad(
              `the uploaded file is larger than the ${MAX_SOURCE_BYTES}-byte limit`,
              'content_base64',
            );
          }
          bytes = buf;
          what = 'the uploaded file';
        } else if (body.url !== undefined) {
          bytes = (await fetchSource(body.url, { allowPrivateNetwork })).body;
          what = body.url;
        } else {
          throw bad('body.url or body.content_base64 is required for a pdf source', 'url');
        }
        const content = await pdfToText(bytes, what);
        if (content.trim() === '') throw new SourceError(`${what} has no extractable text`);
        return { type: 'pdf', title: title || body.url || 'document.pdf', url: body.url ?? null, content };
      }
    }
  } catch (err) {
    if (err instanceof SourceError) {
      throw bad(
        err.message,
        body.type === 'pdf' && body.content_base64 !== undefined ? 'content_base64' : 'url',
      );
    }
    throw err;
  }
}

const SourceResponse = okEnvelope(Type.Ref('KnowledgeSource'));
const BaseResponse = okEnvelope(Type.Ref('KnowledgeBase'));

export const knowledgeRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  allowPrivateNetwork: boolean;
}> = async (app, { store, allowPrivateNetwork }) => {
  async function mustBase(ws: string, id: string): Promise<KnowledgeBase> {
    const base = await store.knowledge.getBase(ws, id);
    if (!base) throw baseNotFound(id);
    return base;
  }

  async function mustSource(ws: string, baseId: string, id: string): Promise<KnowledgeSource> {
    await mustBase(ws, baseId);
    const source = await store.knowledge.getSource(ws, id);
    if (!source || source.knowledgeBaseId !== baseId) throw sourceNotFound(id);
    return source;
  }

  app.get(
    '/knowledge_base',
    {
      schema: {
        tags: TAG,
        summary: 'List knowledge bases, newest first',
        querystring: ListBasesQuery,
        response: { 200: okEnvelope(BasePage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const page = await store.knowledge.listBases(request.workspace.id, limit, offset);
      return ok({
        pagination: { total_records: page.total, limit, offset },
        knowledge_bases: page.items.map(presentBase),
      });
    },
  );

  app.post(
    '/knowledge_base',
    {
      schema: {
        tags: TAG,
        summary: 'Create a knowledge base',
        body: CreateBaseBody,
        response: { 200: BaseResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { name, rag_use_condition } = request.body;
      const base = await store.knowledge.createBase(request.workspace.id, {
        name,
        ...(rag_use_condition !== undefined ? { ragUseCondition: rag_use_condition } : {}),
      });
      return ok(presentBase(base));
    },
  );

  app.get(
    '/knowledge_base/:knowledge_base_id',
    {
      schema: {
        tags: TAG,
        summary: 'Get a knowledge base',
        params: KnowledgeBaseIdParams,
        response: { 200: BaseResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      ok(presentBase(await mustBase(request.workspace.id, request.params.knowledge_base_id))),
  );

  app.put(
    '/knowledge_base/:knowledge_base_id',
    {
      schema: {
        tags: TAG,
        summary: 'Update a knowledge base (name, rag_use_condition)',
        params: KnowledgeBaseIdParams,
        body: UpdateBaseBody,
        response: { 200: BaseResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.knowledge_base_id;
      const { name, rag_use_condition } = request.body;
      const base = await store.knowledge.updateBase(request.workspace.id, id, {
        ...(name !== undefined ? { name } : {}),
        ...(rag_use_condition !== undefined ? { ragUseCondition: rag_use_condition } : {}),
      });
      if (!base) throw baseNotFound(id);
      return ok(presentBase(base));
    },
  );

  app.delete(
    '/knowledge_base/:knowledge_base_id',
    {
      schema: {
        tags: TAG,
        summary: 'Delete a knowledge base with its sources (detaching it from every agent)',
        params: KnowledgeBaseIdParams,
        response: {
          200: okEnvelope(Type.Object({ knowledge_base_id: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const id = request.params.knowledge_base_id;
      if (!(await store.knowledge.deleteBase(request.workspace.id, id))) throw baseNotFound(id);
      return ok({ knowledge_base_id: id });
    },
  );

  app.post(
    '/knowledge_base/:knowledge_base_id/attach',
    {
      schema: {
        tags: TAG,
        summary: "Attach the knowledge base to an agent (replacing the agent's earlier one)",
        params: KnowledgeBaseIdParams,
        querystring: AttachQuery,
        response: {
          200: okEnvelope(Type.Object({ knowledge_base_id: Type.String(), model_id: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.knowledge_base_id;
      const { model_id } = request.query;
      await store.transaction(async (repos) => {
        if (!(await repos.knowledge.getBase(ws, id))) throw baseNotFound(id);
        if (!(await repos.agents.get(ws, model_id))) throw notFound(`agent ${model_id} not found`);
        await repos.knowledge.attachBase(ws, id, model_id);
      });
      return ok({ knowledge_base_id: id, model_id });
    },
  );

  app.post(
    '/knowledge_base/:knowledge_base_id/detach',
    {
      schema: {
        tags: TAG,
        summary: 'Detach the knowledge base from an agent',
        params: KnowledgeBaseIdParams,
        body: DetachBody,
        response: {
          200: okEnvelope(Type.Object({ body: Type.String(), model_id: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.knowledge_base_id;
      const { model_id } = request.body;
      const detached = await store.transaction(async (repos) => {
        if (!(await repos.knowledge.getBase(ws, id))) throw baseNotFound(id);
        if (!(await repos.agents.get(ws, model_id))) throw notFound(`agent ${model_id} not found`);
        return repos.knowledge.detachBase(ws, id, model_id);
      });
      return ok({
        body: detached
          ? `knowledge base ${id} detached from agent ${model_id}`
          : `knowledge base ${id} was not attached to agent ${model_id}`,
        model_id,
      });
    },
  );

  app.get(
    '/knowledge_base/:knowledge_base_id/sources',
    {
      schema: {
        tags: TAG,
        summary: 'List the sources of a knowledge base, oldest first',
        params: KnowledgeBaseIdParams,
        response: {
          200: okEnvelope(Type.Object({ sources: Type.Array(Type.Ref('KnowledgeSource')) })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.knowledge_base_id;
      await mustBase(ws, id);
      return ok({ sources: (await store.knowledge.listSources(ws, id)).map(presentSource) });
    },
  );

  app.post(
    '/knowledge_base/:knowledge_base_id/sources',
    {
      schema: {
        tags: TAG,
        summary: 'Add a source (text, web page or PDF); its text is extracted and indexed',
        params: KnowledgeBaseIdParams,
        body: SourceBody,
        response: { 200: SourceResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.knowledge_base_id;
      await mustBase(ws, id);
      const input = await resolveSource(request.body, allowPrivateNetwork);
      const source = await ingestSource(store, ws, id, input);
      if (!source) throw baseNotFound(id);
      return ok(presentSource(source));
    },
  );

  app.put(
    '/knowledge_base/:knowledge_base_id/sources/:source_id',
    {
      schema: {
        tags: TAG,
        summary: 'Replace a source (fetched or extracted again) and re-index it',
        params: SourceIdParams,
        body: SourceBody,
        response: { 200: SourceResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { knowledge_base_id, source_id } = request.params;
      await mustSource(ws, knowledge_base_id, source_id);
      const input = await resolveSource(request.body, allowPrivateNetwork);
      const source = await reingestSource(store, ws, source_id, input);
      if (!source) throw sourceNotFound(source_id);
      return ok(presentSource(source));
    },
  );

  app.delete(
    '/knowledge_base/:knowledge_base_id/sources/:source_id',
    {
      schema: {
        tags: TAG,
        summary: 'Delete a source (removing it from the index)',
        params: SourceIdParams,
        response: {
          200: okEnvelope(Type.Object({ source_id: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { knowledge_base_id, source_id } = request.params;
      await mustSource(ws, knowledge_base_id, source_id);
      if (!(await store.knowledge.deleteSource(ws, source_id))) throw sourceNotFound(source_id);
      return ok({ source_id });
    },
  );
};
