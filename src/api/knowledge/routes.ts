import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AgentService } from '../../agents/index.ts';
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
  BaseRead,
  BaseWithMessage,
  CONTENT_PREVIEW_CHARS,
  CreateBaseBody,
  DetachBody,
  KnowledgeBaseIdParams,
  ListBasesQuery,
  ListSourcesQuery,
  SourceBody,
  SourceIdParams,
  SourcePage,
  SourceUpdateBody,
  UpdateBaseBody,
  type SourceBodyT,
} from './schemas.ts';

const TAG = ['Knowledge bases'];

const baseNotFound = (id: string) => notFound(`knowledge base ${id} not found`);
const sourceNotFound = (id: string) => notFound(`source ${id} not found`);

function presentBase(b: KnowledgeBase) {
  return {
    knowledge_base_id: b.id,
    id: b.id,
    name: b.name,
    rag_use_condition: b.ragUseCondition,
    created_at: toIso(b.createdAt),
    updated_at: toIso(b.updatedAt),
  };
}

/** The first `n` Unicode code points of `text` (as SQL `substr` counts them on both dialects). */
function codePointPrefix(text: string, n: number): string {
  let i = 0;
  for (let count = 0; i < text.length && count < n; count++) {
    i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  }
  return text.slice(0, i);
}

/** The length of `text` in Unicode code points (as SQL `length` counts it on both dialects). */
function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** A source's fields besides its text: the start of the text and its length stand for it. */
type SourceView = Omit<KnowledgeSource, 'content'> & { preview: string; characters: number };

function viewOf(s: KnowledgeSource): SourceView {
  const { content, ...rest } = s;
  return {
    ...rest,
    preview: codePointPrefix(content, CONTENT_PREVIEW_CHARS),
    characters: codePointLength(content),
  };
}

function presentSource(s: SourceView) {
  return {
    source_id: s.id,
    id: s.id,
    knowledge_base_id: s.knowledgeBaseId,
    type: s.type,
    title: s.title,
    name: s.title,
    url: s.url,
    content_preview: s.preview,
    status: s.status,
    error: s.error,
    characters: s.characters,
    created_at: toIso(s.createdAt),
    updated_at: toIso(s.updatedAt),
  };
}

const bad = (message: string, field: string) => invalidInput(message, ['body', field], 'source');

/**
 * The source name of a body: `title` (Parley's name) or `name` (the published one), trimmed;
 * undefined when neither is given. Both given and different is a 400.
 */
function sourceName(body: { title?: string | undefined; name?: string | undefined }): string | undefined {
  const title = body.title?.trim();
  const name = body.name?.trim();
  if (title !== undefined && name !== undefined && title !== name) {
    throw invalidInput('body.name and body.title are the same field and differ: send one of them', [
      'body',
      'name',
    ]);
  }
  return title ?? name;
}

/**
 * Turns a source body into the text to store: `text` as given, `web` fetched and converted from
 * HTML, `pdf` fetched (or decoded from `content_base64`) and its text extracted. Any failure is a
 * 400 naming the problem, and nothing is stored.
 */
async function resolveSource(body: SourceBodyT, allowPrivateNetwork: boolean): Promise<NewKnowledgeSource> {
  const title = sourceName(body) ?? '';
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

export const knowledgeRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Attaching knowledge bases to agents (src/agents). */
  agents: AgentService;
  allowPrivateNetwork: boolean;
}> = async (app, { store, agents, allowPrivateNetwork }) => {
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
        total_records: page.total,
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
        response: { 200: okEnvelope(BaseWithMessage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { name, rag_use_condition } = request.body;
      const base = await store.knowledge.createBase(request.workspace.id, {
        name,
        ...(rag_use_condition !== undefined ? { ragUseCondition: rag_use_condition } : {}),
      });
      return ok({ ...presentBase(base), body: `knowledge base ${base.id} created` });
    },
  );

  app.get(
    '/knowledge_base/:knowledge_base_id',
    {
      schema: {
        tags: TAG,
        summary: 'Get a knowledge base (also as the one item of `knowledge_bases`)',
        params: KnowledgeBaseIdParams,
        response: { 200: okEnvelope(BaseRead), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const base = presentBase(await mustBase(request.workspace.id, request.params.knowledge_base_id));
      return ok({ ...base, total_records: 1, knowledge_bases: [base] });
    },
  );

  app.put(
    '/knowledge_base/:knowledge_base_id',
    {
      schema: {
        tags: TAG,
        summary: 'Update a knowledge base (name, rag_use_condition)',
        params: KnowledgeBaseIdParams,
        body: UpdateBaseBody,
        response: { 200: okEnvelope(BaseWithMessage), ...errorResponses(400, 401, 404) },
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
      return ok({ ...presentBase(base), body: `knowledge base ${id} updated` });
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
          200: okEnvelope(Type.Object({ knowledge_base_id: Type.String(), body: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const id = request.params.knowledge_base_id;
      if (!(await store.knowledge.deleteBase(request.workspace.id, id))) throw baseNotFound(id);
      return ok({ knowledge_base_id: id, body: `knowledge base ${id} deleted` });
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
          200: okEnvelope(
            Type.Object({ body: Type.String(), knowledge_base_id: Type.String(), model_id: Type.String() }),
          ),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const id = request.params.knowledge_base_id;
      const { model_id } = request.query;
      const earlier = await agents.attachKnowledgeBase(request.workspace.id, id, model_id);
      const body =
        earlier !== null && earlier !== id
          ? `knowledge base ${id} attached to agent ${model_id}, replacing knowledge base ${earlier}`
          : `knowledge base ${id} attached to agent ${model_id}`;
      return ok({ body, knowledge_base_id: id, model_id });
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
          200: okEnvelope(
            Type.Object({ body: Type.String(), model_id: Type.String(), knowledge_base_id: Type.String() }),
          ),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const id = request.params.knowledge_base_id;
      const { model_id } = request.body;
      const detached = await agents.detachKnowledgeBase(request.workspace.id, id, model_id);
      return ok({
        body: detached
          ? `knowledge base ${id} detached from agent ${model_id}`
          : `knowledge base ${id} was not attached to agent ${model_id}`,
        model_id,
        knowledge_base_id: id,
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
        querystring: ListSourcesQuery,
        response: { 200: okEnvelope(SourcePage), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.knowledge_base_id;
      const { limit, offset, name } = request.query;
      await mustBase(ws, id);
      const page = await store.knowledge.pageSources(ws, id, {
        limit,
        offset,
        ...(name !== undefined ? { name: name.trim() } : {}),
        previewChars: CONTENT_PREVIEW_CHARS,
      });
      return ok({
        pagination: { total_records: page.total, limit, offset },
        total_records: page.total,
        knowledge_base_id: id,
        sources: page.items.map(presentSource),
      });
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
      return ok(presentSource(viewOf(source)));
    },
  );

  app.put(
    '/knowledge_base/:knowledge_base_id/sources/:source_id',
    {
      schema: {
        tags: TAG,
        summary:
          'Update a source: with `type`, replace it (fetched or extracted again) and re-index it; ' +
          'without, change its text (`content` or `url`, as its type takes) and/or its name',
        params: SourceIdParams,
        body: SourceUpdateBody,
        response: { 200: SourceResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { knowledge_base_id, source_id } = request.params;
      const existing = await mustSource(ws, knowledge_base_id, source_id);
      const body = request.body;
      const name = sourceName(body);
      const newText =
        body.content !== undefined || body.url !== undefined || body.content_base64 !== undefined;
      let source: KnowledgeSource | null;
      if (body.type === undefined && !newText) {
        // The published form with only a name: rename, keeping the text and its index.
        if (name === undefined) {
          const field = existing.type === 'text' ? 'content' : 'url';
          throw invalidInput(`body.${field} or body.name is required to update a ${existing.type} source`, [
            'body',
            field,
          ]);
        }
        if (name === '') throw invalidInput('body.name must not be empty', ['body', 'name']);
        source = await store.knowledge.renameSource(ws, source_id, name);
      } else {
        const type = body.type ?? existing.type;
        const input = await resolveSource({ ...body, type }, allowPrivateNetwork);
        // Without `type` (the published partial update) an omitted name keeps the current one.
        if (body.type === undefined && name === undefined) input.title = existing.title;
        source = await reingestSource(store, ws, source_id, input);
      }
      if (!source) throw sourceNotFound(source_id);
      return ok(presentSource(viewOf(source)));
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
          200: okEnvelope(Type.Object({ source_id: Type.String(), id: Type.String(), body: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { knowledge_base_id, source_id } = request.params;
      await mustSource(ws, knowledge_base_id, source_id);
      if (!(await store.knowledge.deleteSource(ws, source_id))) throw sourceNotFound(source_id);
      return ok({ source_id, id: source_id, body: `source ${source_id} deleted` });
    },
  );
};
