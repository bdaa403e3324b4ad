import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput, normalizeE164, notFound, requireE164, toIso } from '../../core/index.ts';
import type { Contact, ContactSearch, Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  ContactDeleted,
  ContactIdParams,
  ContactPage,
  ContactRead,
  CreateContactBody,
  ListContactsQuery,
  UpdateContactBody,
} from './schemas.ts';

// Contacts: the workspace's address book (docs/api-notes.md, "Contacts, analytics and voices").
// Numbers are stored in E.164 and emails checked; another workspace's contact is a 404 like a
// missing one. Create, update and delete answer the published fields (`id`, `status`) inside the
// usual envelope, with the whole record where a record exists.

const TAG = ['Contacts'];

/** The same light check as a call's `lead_email`: something@domain.tld, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function presentContact(c: Contact) {
  return {
    id: c.id,
    name: c.name,
    phone_number: c.phoneNumber,
    email: c.email ?? '',
    contact_metadata: c.metadata,
    workspace_id: c.workspaceId,
    created_at: toIso(c.createdAt),
    updated_at: toIso(c.updatedAt),
    memory_store_ids: [],
  };
}

function checkName(name: string): string {
  if (name.trim() === '') throw invalidInput('body.name must not be blank', ['body', 'name'], 'blank');
  return name;
}

const phoneOf = (value: string): string => requireE164(value, ['body', 'phone_number']);

/** An email to store (null: none); empty means none. */
function emailOf(value: string | null): string | null {
  if (value === null || value === '') return null;
  if (!EMAIL.test(value))
    throw invalidInput('body.email is not an email address', ['body', 'email'], 'email');
  return value;
}

/**
 * What `search` looks for: a whole number written with its `+` finds that number; other digits
 * (spaces, dashes, dots and brackets ignored) find the numbers containing them; text with letters
 * finds names containing it.
 */
export function contactSearch(search: string | undefined): ContactSearch | undefined {
  const term = search?.trim() ?? '';
  if (term === '') return undefined;
  if (/\p{L}/u.test(term)) return { name: term };
  if (term.startsWith('+')) {
    const e164 = normalizeE164(term);
    if (e164) return { phoneNumber: e164 };
  }
  const digits = term.replace(/\D/g, '');
  return digits === '' ? { name: term } : { phoneDigits: digits };
}

export const contactRoutes: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  app.post(
    '/contacts',
    {
      schema: {
        tags: TAG,
        summary: 'Create a contact',
        body: CreateContactBody,
        response: { 200: okEnvelope(ContactRead), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const body = request.body;
      const contact = await store.contacts.create(request.workspace.id, {
        name: checkName(body.name),
        phoneNumber: phoneOf(body.phone_number),
        email: emailOf(body.email ?? null),
        metadata: body.contact_metadata ?? {},
      });
      return ok(presentContact(contact));
    },
  );

  app.get(
    '/contacts',
    {
      schema: {
        tags: TAG,
        summary: "List the workspace's contacts, newest first",
        querystring: ListContactsQuery,
        response: { 200: okEnvelope(ContactPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { search, page_number, page_size } = request.query;
      const query = contactSearch(search);
      const page = await store.contacts.list(request.workspace.id, {
        pageNumber: page_number,
        pageSize: page_size,
        ...(query ? { search: query } : {}),
      });
      return ok({ items: page.items.map(presentContact), total: page.total, page_number, page_size });
    },
  );

  app.get(
    '/contacts/:contact_id',
    {
      schema: {
        tags: TAG,
        summary: 'Get a contact',
        params: ContactIdParams,
        response: { 200: okEnvelope(ContactRead), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const contact = await store.contacts.get(request.workspace.id, request.params.contact_id);
      if (!contact) throw notFound(`contact ${request.params.contact_id} not found`);
      return ok(presentContact(contact));
    },
  );

  app.patch(
    '/contacts/:contact_id',
    {
      schema: {
        tags: TAG,
        summary: 'Update a contact (the fields given; contact_metadata is merged key by key)',
        params: ContactIdParams,
        body: UpdateContactBody,
        response: { 200: okEnvelope(ContactRead), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      const contact = await store.contacts.update(request.workspace.id, request.params.contact_id, {
        ...(body.name !== undefined ? { name: checkName(body.name) } : {}),
        ...(body.phone_number !== undefined ? { phoneNumber: phoneOf(body.phone_number) } : {}),
        ...(body.email !== undefined ? { email: emailOf(body.email) } : {}),
        ...(body.contact_metadata !== undefined ? { metadata: body.contact_metadata } : {}),
      });
      if (!contact) throw notFound(`contact ${request.params.contact_id} not found`);
      return ok(presentContact(contact));
    },
  );

  app.delete(
    '/contacts/:contact_id',
    {
      schema: {
        tags: TAG,
        summary: 'Delete a contact',
        params: ContactIdParams,
        response: { 200: okEnvelope(ContactDeleted), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const deleted = await store.contacts.delete(request.workspace.id, request.params.contact_id);
      if (!deleted) throw notFound(`contact ${request.params.contact_id} not found`);
      return ok({ id: request.params.contact_id });
    },
  );
};
