import { Type, type Static } from '@sinclair/typebox';
import { MAX_MESSAGE_CHARS } from '../../chat/index.ts';
import { NonEmptyString, Nullable, StringEnum } from '../schemas/common.ts';

// The chat resource (spec "Chats", WIRE.md section 6).

export const CHAT_STATUSES = ['ongoing', 'completed', 'cancelled'] as const;
export const TURN_STATES = ['ongoing', 'completed'] as const;
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export const ChatIdParams = Type.Object({
  chat_id: Type.String({ format: 'uuid', maxLength: 36, description: 'Chosen by the caller (UUID).' }),
});

const Metadata = Type.Object({}, { additionalProperties: true, description: 'Arbitrary keys and values.' });

export const CreateChatBody = Type.Object({
  model_id: NonEmptyString(100, 'The agent that answers.'),
  metadata: Type.Optional(Metadata),
});
export type CreateChatBody = Static<typeof CreateChatBody>;

export const SendMessageBody = Type.Object({
  message: NonEmptyString(MAX_MESSAGE_CHARS, 'What the user says.'),
});

export const ListChatsQuery = Type.Object({
  agent_id: Type.Optional(NonEmptyString(100, 'Only chats with this agent.')),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: 'next_cursor of the previous page; empty: the first page.' }),
  ),
});

export const AgentTurn = Type.Object({
  agent_message: Type.String(),
  current_state: StringEnum(TURN_STATES),
  timestamp: Type.String({ format: 'date-time' }),
  turn_number: Type.Integer(),
});

export const HistoryEntry = Type.Object({
  agent_id: Type.String({ description: '`user` for the user, else the agent id.' }),
  message: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  turn_number: Type.Integer(),
  current_state: StringEnum(TURN_STATES),
});

export const ChatRecord = Type.Object({
  chat_id: Type.String(),
  model_id: Type.String(),
  chat_status: StringEnum(CHAT_STATUSES),
  metadata: Metadata,
  channel: Type.String(),
  conversation_history: Type.Array(HistoryEntry),
  initial_message: Type.Union([AgentTurn, Type.Null()]),
  start_timestamp: Type.String({ format: 'date-time' }),
  transcript: Type.String(),
  agent_version: Type.String({
    description:
      'Parley extension: the agent version the chat opened with and keeps: a version id, or `draft`.',
  }),
  executed_actions: Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }), {
    description: 'The latest run of each action, by action name.',
  }),
  action_execution_timeline: Type.Array(Type.Object({}, { additionalProperties: true }), {
    description: 'One entry per attempt, in order.',
  }),
  collected_variables: Type.Union(
    [
      Type.Record(
        Type.String(),
        Type.Object({
          value: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
          collected: Type.Boolean(),
        }),
      ),
      Type.Null(),
    ],
    { description: 'Variables collected so far (only collected ones); null when none.' },
  ),
  fsm_log: Nullable(Type.Object({}, { additionalProperties: true }), {
    description:
      'Flow-designer execution log of the published API; always null (Parley agents are prompt agents).',
  }),
});

export const ChatPage = Type.Object({
  chats: Type.Array(ChatRecord),
  has_more: Type.Boolean(),
  // A string, as the published API types it: "" on the last page.
  next_cursor: Type.String({ description: 'Pass as `cursor` for the next page; empty on the last page.' }),
});

export const CancelledChat = Type.Object({
  chat_id: Type.String(),
  chat_status: Type.Literal('cancelled'),
});
