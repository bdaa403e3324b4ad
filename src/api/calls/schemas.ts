import { Type } from '@sinclair/typebox';
import { CALL_STATUSES } from '../../calls/index.ts';
import {
  CustomVariablesInput,
  HttpUrl,
  NonEmptyString,
  Nullable,
  PaginationSchema,
  StringEnum,
} from '../schemas/common.ts';

// The call resource (spec "Calls", WIRE.md section 4).

export const PlaceCallBody = Type.Object({
  model_id: NonEmptyString(100, 'The agent that calls.'),
  phone: NonEmptyString(32, "The recipient's number (E.164 preferred)."),
  name: NonEmptyString(200, "The recipient's name."),
  from_phone_number: Type.Optional(
    NonEmptyString(32, 'Caller id: a number attached to the agent; default its first attached number.'),
  ),
  custom_variables: Type.Optional(
    CustomVariablesInput('Pre-call variables for `{placeholders}` of the prompt and greeting.'),
  ),
  lead_email: Type.Optional(Type.String({ maxLength: 320 })),
  lead_timezone: Type.Optional(NonEmptyString(64, 'IANA zone, for bookings.')),
  prompt: Type.Optional(Type.String({ maxLength: 100_000, description: "This call's prompt." })),
  greeting: Type.Optional(Type.String({ maxLength: 10_000, description: "This call's greeting." })),
  external_webhook_url: Type.Optional(
    HttpUrl("Receives this call's post-call webhook (overrides the agent's)"),
  ),
  metadata: Type.Optional(
    Type.Object({}, { additionalProperties: true, description: 'Returned in the record and the webhook.' }),
  ),
  agent_version: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Parley extension: the agent version to run, `draft` or a version UUID of the agent; omitted: the live version.',
    }),
  ),
});

export const PlaceCallResponse = Type.Object({
  status: Type.Literal('ok'),
  response: Type.Object({ answer: Type.Literal('ok'), call_id: Type.String() }),
  eta: Type.Integer({ description: 'Seconds until the call is expected to start ringing.' }),
});

export const CallIdParams = Type.Object({ call_id: NonEmptyString(100) });

const Int64 = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description });

export const ListCallsQuery = Type.Object({
  model_id: Type.Optional(NonEmptyString(100, "The agent whose calls to list; omitted: every agent's.")),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
  from_date: Type.Optional(Int64('Calls that began at or after (ms since the epoch).')),
  to_date: Type.Optional(Int64('Calls that ended at or before (ms since the epoch).')),
  call_status: Type.Optional(StringEnum(CALL_STATUSES)),
  duration_min: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Seconds, inclusive.' }),
  ),
  duration_max: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Seconds, inclusive.' }),
  ),
  lead_phone_number: Type.Optional(NonEmptyString(32, 'Caller or callee, matched exactly (E.164).')),
  batch_call_id: Type.Optional(NonEmptyString(100)),
});

const Json = Type.Unknown();

const callFields = {
  call_id: Type.String(),
  model_id: Type.String(),
  end_call_reason: Nullable(Type.String()),
  custom_end_call_reason: Nullable(Type.String()),
  error_message: Type.String({ description: 'Why the call failed; empty when it did not.' }),
  type_of_call: StringEnum(['outbound', 'inbound', 'web'] as const),
  campaign_type: Type.String({ description: 'The call direction, as type_of_call.' }),
  phone_number_from: Type.String(),
  phone_number_to: Type.String(),
  name: Type.String(),
  lead_email: Nullable(Type.String()),
  lead_timezone: Nullable(Type.String()),
  prompt_variables: Type.Record(Type.String(), Json),
  transcript: Type.String(),
  duration: Type.Integer({ description: 'Seconds from answer to hang-up.' }),
  start_time: Nullable(Type.String()),
  end_time: Nullable(Type.String()),
  timezone: Type.String(),
  recording_url: Nullable(Type.String()),
  executed_actions: Type.Record(Type.String(), Json),
  collected_variables: Json,
  action_execution_timeline: Type.Array(Json),
  analysis: Json,
  metadata: Type.Record(Type.String(), Json),
  batch_call_id: Nullable(Type.String()),
  quality: Json,
  agent_version: Type.String({
    description:
      'Parley extension: the agent version the call ran, fixed when it was placed: a version id, or `draft`.',
  }),
  agents_used: Type.Array(Type.String(), {
    description: 'The agent that took the call, after any it was routed from.',
  }),
  telephony_hangup: Nullable(StringEnum(['caller', 'callee'] as const), {
    description: 'Which party hung up; null when the ending does not say (no answer, busy, failed).',
  }),
  telephony_disconnect_reason: Nullable(
    StringEnum(['caller_hangup', 'callee_hangup', 'error', 'unknown'] as const),
  ),
  telephony_start: Nullable(Type.String({ description: 'First ring (ISO 8601, UTC).' })),
  telephony_end: Nullable(Type.String({ description: 'Hang-up (ISO 8601, UTC).' })),
  telephony_duration: Nullable(Type.Integer({ description: 'ms from the first ring to the hang-up.' })),
  telephony_ringing_duration: Nullable(
    Type.Integer({ description: 'ms from the first ring to the answer.' }),
  ),
  created_at: Type.String(),
};

export const CallRecord = Type.Object({ ...callFields, status: StringEnum(CALL_STATUSES) });
export const CallListItem = Type.Object({
  ...callFields,
  call_status: StringEnum(CALL_STATUSES),
  lead_phone_number: Type.String(),
  lead_name: Type.String(),
  agent_phone_number: Type.String({ description: "The agent's side of the call." }),
  judge_results: Json,
  labels: Type.Array(Type.String()),
  recording_duration: Nullable(Type.String()),
  deployment_type: Nullable(Type.String()),
});

export const CallPage = Type.Object({ pagination: PaginationSchema, calls: Type.Array(CallListItem) });
export const CallReadPage = Type.Object({ pagination: PaginationSchema, calls: Type.Array(CallRecord) });

export const SimInboundBody = Type.Object({
  from_number: NonEmptyString(32, 'The caller (any E.164 number).'),
  to_number: NonEmptyString(32, "One of the workspace's sim numbers."),
});
export const SimInboundResult = Type.Object({ call_id: Type.String(), status: Type.String() });
