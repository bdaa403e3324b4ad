import { Type } from '@sinclair/typebox';
import { NonEmptyString } from '../schemas/common.ts';

// Contacts (`/v2/contacts`): a workspace's address book. The published shapes: create and update
// take `name`, `phone_number`, `email` and `contact_metadata`; reads answer the record below; the
// list is a page list (`items`, `total`, `page_number`, `page_size`).

const Metadata = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'Any other fields of the contact (for example `company`), as a JSON object.',
  },
);

const Email = Type.String({ maxLength: 254, description: 'An email address; empty for none.' });

export const CreateContactBody = Type.Object({
  name: NonEmptyString(255, "The contact's name."),
  phone_number: NonEmptyString(32, 'With its country code (E.164 preferred); stored in E.164.'),
  email: Type.Optional(Email),
  contact_metadata: Type.Optional(Metadata),
});

export const UpdateContactBody = Type.Object({
  name: Type.Optional(NonEmptyString(255, "The contact's name.")),
  phone_number: Type.Optional(NonEmptyString(32, 'With its country code (E.164 preferred).')),
  email: Type.Optional(
    Type.Union([Email, Type.Null()], { description: 'An email address; empty or null removes it.' }),
  ),
  contact_metadata: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'Merged into the stored object: given keys replace, a key set to null is removed.',
      },
    ),
  ),
});

export const ContactIdParams = Type.Object({ contact_id: NonEmptyString(100) });

export const ListContactsQuery = Type.Object({
  search: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'A phone number (any formatting) finds that number; part of a number (digits) finds the numbers ' +
        'containing it; text with letters finds names containing it (case-insensitive).',
    }),
  ),
  page_number: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1, description: 'From 1.' }),
  page_size: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page.' }),
});

export const ContactRead = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    phone_number: Type.String({ description: 'E.164.' }),
    email: Type.String({ description: 'Empty when none.' }),
    contact_metadata: Metadata,
    workspace_id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    memory_store_ids: Type.Array(Type.String(), {
      description: 'Always empty: Parley has no memory stores.',
    }),
  },
  { title: 'Contact' },
);

export const ContactPage = Type.Object({
  items: Type.Array(ContactRead),
  total: Type.Integer(),
  page_number: Type.Integer(),
  page_size: Type.Integer(),
});

export const ContactDeleted = Type.Object({ id: Type.String() });
