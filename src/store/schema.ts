import type { Generated } from 'kysely';

// Table types as the database holds them. Times are integer milliseconds since the epoch; flags
// are 0/1 integers and JSON columns are text on SQLite and jsonb on PostgreSQL (see json.ts), so
// one repository implementation serves both dialects.

export interface MetaTable {
  key: string;
  value: string;
}

export interface WorkspaceTable {
  seq: Generated<number>;
  id: string;
  parent_id: string | null;
  name: string;
  plan: string;
  max_concurrent_calls: number;
  calls_per_second: number | null;
  webhook_secret: string;
  include_timeline_in_webhook: number;
  default_agent_id: string | null;
  usage_seconds: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  /** Bumped with every change to the workspace's agents or their numbers (cache validation). */
  agents_version: Generated<number>;
  /** The secret before the last rotation; webhooks are signed with both until it expires. */
  previous_webhook_secret: string | null;
  previous_webhook_secret_expires_at: number | null;
}

export interface ApiKeyTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  name: string;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, to tell keys apart in listings. */
  prefix: string;
  created_at: number;
}

export interface AgentTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  type: string;
  name: string;
  /** Every other field of the agent as the API accepts it (JSON). */
  spec: unknown;
  created_at: number;
  updated_at: number;
  /** The published version new conversations run; null: never published, the draft (020). */
  live_version_id: Generated<string | null>;
}

export interface PhoneNumberTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  number: string;
  slug: string;
  provider: string;
  /** SIP trunk settings for provider `sip` (JSON) or null. */
  sip: unknown;
  default_agent_id: string | null;
  /** A human-readable name ('' when none). */
  friendly_name: Generated<string>;
  /** The published provider name it was imported with (`twilio`, `zoom`...), or null. */
  provider_name: string | null;
  created_at: number;
  updated_at: number;
}

export interface AgentPhoneNumberTable {
  workspace_id: string;
  agent_id: string;
  phone_number_id: string;
  created_at: number;
}

export interface ChatTable {
  seq: Generated<number>;
  /** Chosen by the caller (a UUID), unique across workspaces. */
  id: string;
  workspace_id: string;
  agent_id: string;
  status: string;
  channel: string;
  /** The caller's metadata object (JSON). */
  metadata: unknown;
  /** The conversation's state, a SessionSnapshot (JSON). */
  state: unknown;
  /** Incremented by every state write (optimistic concurrency). */
  version: number;
  created_at: number;
  updated_at: number;
  /** sms/whatsapp chats: the workspace's number (E.164); null for api chats. */
  own_number: string | null;
  /** sms/whatsapp chats: the other side's number (E.164); null for api chats. */
  remote_number: string | null;
  /** When the other side last wrote (ms); null before any inbound message. */
  last_inbound_at: number | null;
  /** 1: opened without an API key (a public widget); only such chats take keyless messages. */
  opened_without_key: Generated<number>;
  /** The agent version the chat opened with; null: the draft (020). */
  agent_version_id: Generated<string | null>;
}

export interface KnowledgeBaseTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  name: string;
  /** When the agent should consult the base (free text for the LLM). */
  rag_use_condition: string;
  created_at: number;
  updated_at: number;
}

export interface KnowledgeSourceTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  knowledge_base_id: string;
  /** text | web | pdf */
  type: string;
  title: string;
  url: string | null;
  /** The extracted text. */
  content: string;
  /** ready | pending | failed */
  status: string;
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** Indexed for full-text search: FTS5 (rowid = seq) on SQLite, a tsvector column on PostgreSQL. */
export interface KnowledgeChunkTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  knowledge_base_id: string;
  source_id: string;
  position: number;
  text: string;
}

/** The knowledge base an agent consults (at most one per agent). */
export interface AgentKnowledgeTable {
  workspace_id: string;
  agent_id: string;
  knowledge_base_id: string;
  created_at: number;
}

export interface ActionTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  /** One of ACTION_KINDS (records.ts). */
  kind: string;
  /** The kind's `name` (`identifier` for INFORMATION_EXTRACTOR), exactly as given. */
  name: string;
  /** The kind's configuration object as the API accepts it (JSON). */
  config: unknown;
  created_at: number;
  updated_at: number;
}

export interface AgentActionTable {
  workspace_id: string;
  agent_id: string;
  action_id: string;
  created_at: number;
  /** `before`, `during` (the default) or `after` (017). */
  attachment_type: Generated<string>;
  /** The agent's own "when to use it" condition; null: the action's own (017). */
  trigger_condition: string | null;
  /** JSON: the published `input_variables_mapping` items; null: none given (017). */
  input_variables_mapping: unknown;
}

export interface Schema {
  parley_meta: MetaTable;
  workspaces: WorkspaceTable;
  api_keys: ApiKeyTable;
  agents: AgentTable;
  phone_numbers: PhoneNumberTable;
  agent_phone_numbers: AgentPhoneNumberTable;
  chats: ChatTable;
  actions: ActionTable;
  agent_actions: AgentActionTable;
  knowledge_bases: KnowledgeBaseTable;
  knowledge_sources: KnowledgeSourceTable;
  knowledge_chunks: KnowledgeChunkTable;
  calendar_hours: CalendarHoursTable;
  calendar_bookings: CalendarBookingTable;
  agent_knowledge: AgentKnowledgeTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_logs: WebhookLogTable;
  calls: CallTable;
  batches: BatchTable;
  batch_tasks: BatchTaskTable;
  simulation_suites: SimulationSuiteTable;
  simulation_cases: SimulationCaseTable;
  simulation_sessions: SimulationSessionTable;
  simulations: SimulationTable;
  nodes: NodeTable;
  contacts: ContactTable;
  agent_versions: AgentVersionTable;
  ws_media_sessions: WsMediaSessionTable;
  call_turns: CallTurnTable;
  sip_registrations: SipRegistrationTable;
  twilio_accounts: TwilioAccountTable;
  speech_providers: SpeechProviderTable;
}

/** A published agent version: an immutable snapshot of the agent's draft (020). */
export interface AgentVersionTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  agent_id: string;
  /** 1..n per agent, in publishing order. */
  number: number;
  description: string | null;
  /** The AgentSnapshot (agent-versions.ts) as JSON. */
  snapshot: unknown;
  created_at: number;
}

export interface CalendarHoursTable {
  seq: Generated<number>;
  workspace_id: string;
  agent_id: string;
  /** 0 = Sunday … 6 = Saturday. */
  weekday: number;
  /** Minutes after local midnight in `time_zone`; the end is exclusive. */
  start_minute: number;
  end_minute: number;
  time_zone: string;
}

export interface CalendarBookingTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  agent_id: string;
  start_at: number;
  end_at: number;
  attendee_name: string;
  attendee_email: string;
  created_at: number;
}

/** The webhook outbox: one row per webhook to deliver (src/store/webhooks.ts). */
export interface WebhookDeliveryTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  /** external_webhook | inbound_webhook | custom_action */
  type: string;
  url: string;
  /** The exact body sent on every attempt (JSON text on both dialects). */
  payload: string;
  call_id: string | null;
  assistant_id: string | null;
  /** pending | success | failed */
  status: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** One row per webhook attempt. */
export interface WebhookLogTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  delivery_id: string | null;
  webhook_type: string;
  /** pending | success | failed */
  status: string;
  call_id: string | null;
  assistant_id: string | null;
  url: string;
  request_headers: unknown;
  request_body: string;
  response_status_code: number | null;
  response_headers: unknown;
  response_body: string | null;
  attempt_number: number;
  duration_ms: number;
  error: string | null;
  created_at: number;
}

export interface CallTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  agent_id: string;
  /** outbound | inbound | web */
  type: string;
  status: string;
  end_call_reason: string | null;
  custom_end_call_reason: string | null;
  error_message: string | null;
  phone_from: string;
  phone_to: string;
  lead_name: string;
  lead_email: string | null;
  lead_timezone: string | null;
  variables: unknown;
  metadata: unknown;
  /** Per-call settings: prompt and greeting overrides, inbound routing. */
  settings: unknown;
  webhook_url: string | null;
  batch_call_id: string | null;
  batch_task_id: string | null;
  /** The conversation's snapshot and action records. */
  state: unknown;
  analysis: unknown;
  quality: unknown;
  transcript: Generated<string>;
  call_sid: string | null;
  /** The node running the call. */
  node: string | null;
  /** 1 while the call counts against max_concurrent_calls. */
  holds_slot: number;
  /** 1 from the hang-up until the after-the-call work's last move. */
  after_call: Generated<number>;
  /** The agent version the call runs, fixed at placement; null: the draft (020). */
  agent_version_id: Generated<string | null>;
  created_at: number;
  ringing_at: number | null;
  answered_at: number | null;
  ended_at: number | null;
  duration_seconds: number | null;
  version: Generated<number>;
  updated_at: number;
}

export interface BatchTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  agent_id: string;
  name: string;
  /** scheduled | in_progress | paused | completed | canceled */
  status: string;
  from_phone_number: string;
  from_provider: string;
  trigger_at: number | null;
  reserved_concurrency: number;
  call_time_window: unknown;
  total_task_count: Generated<number>;
  /** Queued or claimed (not yet dispatched, failed or canceled). */
  pending_count: Generated<number>;
  dispatched_count: Generated<number>;
  failed_count: Generated<number>;
  canceled_count: Generated<number>;
  /** Dispatched calls that have reached a final status. */
  calls_ended_count: Generated<number>;
  last_dispatch_at: number | null;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

export interface BatchTaskTable {
  seq: Generated<number>;
  id: string;
  batch_id: string;
  workspace_id: string;
  /** 0-based, dense within the batch: the order added. */
  position: number;
  /** The `id` the caller gave the task, if any. */
  client_id: string | null;
  to_phone_number: string;
  lead_name: string | null;
  lead_email: string | null;
  custom_variables: unknown;
  override_model_id: string | null;
  /** queued | claimed | dispatched | failed | canceled */
  status: string;
  error_message: string | null;
  call_id: string | null;
  claimed_by: string | null;
  claimed_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A simulation suite: cases run together against one agent (`model_id`). */
export interface SimulationSuiteTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  name: string;
  /** `name` lowercased (JavaScript's toLowerCase) for case-insensitive search on both dialects. */
  name_folded: string;
  model_id: string;
  language: Generated<string>;
  created_at: number;
  updated_at: number;
}

/** A simulation case: a simulated caller (`prompt`) and the criteria that decide the call. */
export interface SimulationCaseTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  suite_id: string | null;
  name: string;
  /** `name` lowercased (JavaScript's toLowerCase) for case-insensitive search on both dialects. */
  name_folded: string;
  prompt: string;
  /** custom | agent_based */
  type: string;
  /** string[] (JSON). */
  success_criteria: unknown;
  /** all | any */
  call_success_type: string;
  base_agent_id: string | null;
  created_at: number;
  updated_at: number;
}

/** One execution of a suite (no repository yet: the execution work adds it). */
export interface SimulationSessionTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  suite_id: string;
  model_id: string;
  status: string;
  max_turns: number;
  /** The agent version the session runs; null: the draft (020). */
  agent_version_id: Generated<string | null>;
  total: Generated<number>;
  completed: Generated<number>;
  failed: Generated<number>;
  created_at: number;
  updated_at: number;
}

/** One case within a session. */
export interface SimulationTable {
  seq: Generated<number>;
  id: string;
  session_id: string;
  workspace_id: string;
  case_id: string;
  status: string;
  /** 0/1; null until judged. */
  passed: number | null;
  /** [{criterion, passed, reason}] (JSON). */
  criteria_results: unknown;
  transcript: Generated<string>;
  turns: Generated<number>;
  error: string | null;
  /** The variables a single run was started with (JSON object), or null. */
  custom_variables: Generated<unknown>;
  created_at: number;
  updated_at: number;
}

export interface NodeTable {
  seq: Generated<number>;
  name: string;
  started_at: number;
  last_seen_at: number;
  /** Where clients reach the node (PARLEY_PUBLIC_URL). */
  public_url: Generated<string>;
  /** 1: the node runs WebSocket media calls. */
  ws_media: Generated<number>;
}

/** A WebSocket media session, readable by the node that runs its call (calls across nodes). */
/** A workspace's own Twilio account (023). */
export interface TwilioAccountTable {
  workspace_id: string;
  account_sid: string;
  auth_token: string;
  created_at: number;
  updated_at: number;
}

export interface WsMediaSessionTable {
  sid: string;
  call_id: string;
  node: string;
  codec: string;
  framing: string;
  expires_at: number;
}

/** A completed turn of a running call's transcript (022), until the call's last move. */
export interface CallTurnTable {
  call_id: string;
  turn: number;
  workspace_id: string;
  speaker: string;
  text: string;
  at: number;
  /** 1: the agent was cut off; `text` is what was delivered. */
  interrupted: Generated<number>;
}

/** A number's SIP trunk registration as a node last reported it (024). */
export interface SipRegistrationTable {
  number_id: string;
  /** `registering`, `registered` or `failed`. */
  state: string;
  error: string | null;
  expires_at: number | null;
  retry_at: number | null;
  node: string;
  updated_at: number;
}

/** A workspace's contact (`/v2/contacts`). */
export interface ContactTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  name: string;
  /** `name` lowercased (JavaScript's toLowerCase) for case-insensitive search on both dialects. */
  name_folded: string;
  /** E.164. */
  phone_number: string;
  email: string | null;
  /** The client's `contact_metadata` object (JSON). */
  metadata: unknown;
  created_at: number;
  updated_at: number;
}

/** A workspace's own settings for a hosted speech vendor (025). */
export interface SpeechProviderTable {
  workspace_id: string;
  vendor: string;
  api_key: string;
  base_url: string | null;
  stt_model: string | null;
  tts_model: string | null;
  voice: string | null;
  created_at: number;
  updated_at: number;
}
