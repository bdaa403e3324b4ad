import { Type } from '@sinclair/typebox';
import { MAX_MESSAGE_CHARS } from '../../chat/index.ts';
import {
  CustomVariablesInput,
  NonEmptyString,
  PaginationSchema,
  StringEnum,
  limitOffsetQuery,
} from '../schemas/common.ts';

// Outbound chats (WIRE.md section 6) and the sim's endpoints for playing the other side.

export const MESSAGING_CHANNELS = ['sms', 'whatsapp'] as const;

const PhoneField = (description: string) => NonEmptyString(40, `${description} (E.164, e.g. +14155550123)`);

export const OutboundChatBody = Type.Object({
  agent_id: NonEmptyString(100, 'The chat agent that converses.'),
  channel: StringEnum(MESSAGING_CHANNELS),
  to_number: PhoneField('The person to write to'),
  from_number: PhoneField("A number of the workspace's inventory attached to the agent"),
  initial_message: Type.Optional(
    NonEmptyString(MAX_MESSAGE_CHARS, "The first message; default the agent's greeting_message."),
  ),
  template: Type.Optional(
    Type.Object({
      content_sid: NonEmptyString(100, 'The pre-approved template (Twilio Content SID).'),
      variables: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 1000 }))),
    }),
  ),
  custom_variables: Type.Optional(
    CustomVariablesInput(
      "Placeholder values for the agent's prompt and messages; kept as the chat's metadata.",
    ),
  ),
});

export const OutboundChatResult = Type.Object({ conversation_id: Type.String() });

export const SimInboundBody = Type.Object({
  channel: StringEnum(MESSAGING_CHANNELS),
  from: PhoneField('The other side, who writes'),
  to: PhoneField("The workspace's number written to"),
  body: NonEmptyString(MAX_MESSAGE_CHARS, 'The text.'),
});

export const SimInboundResult = Type.Object({
  chat_id: Type.Union([Type.String(), Type.Null()], { description: 'null: no ongoing chat; ignored.' }),
  agent_message: Type.Union([Type.String(), Type.Null()]),
});

export const SimMessagesQuery = Type.Object(limitOffsetQuery(20, 100));

export const SimMessage = Type.Object({
  message_id: Type.String(),
  channel: StringEnum(MESSAGING_CHANNELS),
  from: Type.String(),
  to: Type.String(),
  body: Type.Union([Type.String(), Type.Null()]),
  template: Type.Union([
    Type.Object({ content_sid: Type.String(), variables: Type.Record(Type.String(), Type.String()) }),
    Type.Null(),
  ]),
  sent_at: Type.String({ format: 'date-time' }),
});

export const SimMessagePage = Type.Object({ pagination: PaginationSchema, messages: Type.Array(SimMessage) });
