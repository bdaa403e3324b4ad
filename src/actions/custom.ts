import {
  DEFAULT_MAX_RESPONSE_BYTES,
  OutboundHttpError,
  type CallVariable,
  type CustomActionConfig,
  type CustomAuth,
  type HttpPort,
  type HttpResponse,
  type KeyValue,
} from '../core/index.ts';
import type { ActionRecorder } from './recorder.ts';
import { fillJsonBody, fillText, fillUrl, mergeValues, type TemplateValues } from './template.ts';
import { sanitizeToolName, type ActionTool, type ActionVariables } from './types.ts';

// CUSTOM_ACTION (WIRE.md section 8) as a tool: the model sends the `variables_during_the_call`
// as arguments; they, the action's `variables_before_the_call` and the call's variables fill the
// placeholders (`{name}` or `<name>`, see template.ts) of the URL, headers, query, custom_auth
// value and JSON body; the request goes through the injected `HttpPort` (the safe fetch in
// production) with `failure_timeout` and a response size cap. A redirect to another origin
// carries none of the configured headers or the custom_auth header (the safe fetch's rule).
//
// `message_before_action_starts` and `speech_while_using_the_tool` are said BEFORE the request
// (in that order): they are exposed as the tool's `messageBefore` (and recorded as
// `message_before_action`) for the transport to speak when the call starts; they are not
// returned as the outcome's `say`. On failure the outcome's `say` is `message_error` when set.

export const CUSTOM_ACTION_TYPE = 'custom_action_type';
export const DEFAULT_FAILURE_TIMEOUT_SECONDS = 10;

export type CustomVariableType = 'string' | 'number' | 'boolean' | 'integer';

/** A variable the model fills; its `type` may also be int, float, bool (anything else: string). */
export type CustomActionVariable = CallVariable;

/**
 * The stored configuration (src/core/action-config.ts). `custom_auth` is `{is_needed, location,
 * key, value}` (`location` `header`, the default: `Authorization: <key> <value>` with `key`
 * default `Bearer`; `query`: `?<key>=<value>`), or a string sent as the Authorization header
 * verbatim. `variables_before_the_call` are fixed values for the placeholders, `[{key, value}]`; a
 * value may itself hold placeholders, filled from the call's variables. They take precedence over
 * the call's variables of the same name; the model's arguments take precedence over them.
 * `message_before_action_starts` is said before `speech_while_using_the_tool`; `failure_timeout` is
 * in seconds.
 */
export type { CustomActionConfig, CustomAuth, KeyValue };

export interface CustomActionDeps {
  http: HttpPort;
  recorder?: ActionRecorder;
  /** Call variables (prompt variables, lead fields) for the placeholders. */
  variables?: ActionVariables;
  action_id?: string;
  maxResponseBytes?: number;
}

export interface CustomActionTool extends ActionTool {
  /** To say before the request runs (`speech_while_using_the_tool`); empty when none. */
  readonly messageBefore: string;
}

/** What a run produced: `result` is what the model is told. */
export interface CustomActionRun {
  ok: boolean;
  result: Record<string, unknown>;
  error: string | null;
}

function normalizeType(type: string | undefined): CustomVariableType {
  const t = (type ?? 'string').toLowerCase();
  if (t === 'int' || t === 'integer') return 'integer';
  if (t === 'float' || t === 'number' || t === 'money') return 'number';
  if (t === 'bool' || t === 'boolean') return 'boolean';
  return 'string';
}

export function customActionSchema(config: CustomActionConfig): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const v of config.variables_during_the_call ?? []) {
    const description = [v.description, v.example ? `Example: ${v.example}` : ''].filter(Boolean).join(' ');
    properties[v.name] = { type: normalizeType(v.type), ...(description ? { description } : {}) };
    required.push(v.name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Checks the model's arguments; numeric and boolean strings are converted. */
function checkArgs(
  config: CustomActionConfig,
  args: Record<string, unknown>,
): { ok: true; values: Record<string, unknown> } | { ok: false; error: string } {
  const values: Record<string, unknown> = {};
  for (const v of config.variables_during_the_call ?? []) {
    const type = normalizeType(v.type);
    let value = args[v.name];
    if (value === undefined || value === null)
      return { ok: false, error: `the argument "${v.name}" is missing` };
    if ((type === 'number' || type === 'integer') && typeof value === 'string' && value.trim() !== '') {
      const n = Number(value);
      if (Number.isFinite(n)) value = n;
    }
    if (type === 'boolean' && (value === 'true' || value === 'false')) value = value === 'true';
    const good =
      type === 'string'
        ? typeof value === 'string'
        : type === 'boolean'
          ? typeof value === 'boolean'
          : typeof value === 'number' &&
            Number.isFinite(value) &&
            (type === 'number' || Number.isInteger(value));
    if (!good)
      return {
        ok: false,
        error: `the argument "${v.name}" must be ${type === 'integer' ? 'an' : 'a'} ${type}`,
      };
    values[v.name] = value;
  }
  return { ok: true, values };
}

/** The placeholder values of one run: the call's variables, the fixed ones, the arguments. */
function runValues(
  config: CustomActionConfig,
  variables: ActionVariables | undefined,
  args: Record<string, unknown>,
): TemplateValues {
  const call = variables ?? {};
  const fixed: Record<string, string> = {};
  for (const { key, value } of config.variables_before_the_call ?? []) {
    if (key) fixed[key] = fillText(String(value), call);
  }
  return mergeValues({ ...call, ...fixed }, args);
}

/** What is said before the request runs (empty when nothing). */
const messageBeforeOf = (config: CustomActionConfig): string =>
  [config.message_before_action_starts, config.speech_while_using_the_tool]
    .map((m) => m?.trim() ?? '')
    .filter(Boolean)
    .join(' ');

function buildRequest(config: CustomActionConfig, values: TemplateValues) {
  const method = (config.http_mode ?? 'GET').toUpperCase();
  const url = new URL(fillUrl(config.url, values));
  const query = Array.isArray(config.query_parameters)
    ? config.query_parameters
    : Object.entries(config.query_parameters ?? {}).map(([key, value]) => ({ key, value }));
  for (const { key, value } of query) {
    if (key) url.searchParams.append(fillText(key, values), fillText(String(value), values));
  }
  const headers: Record<string, string> = {};
  for (const { key, value } of config.headers ?? []) {
    if (key) headers[fillText(key, values).trim().toLowerCase()] = fillText(String(value), values);
  }
  const auth = config.custom_auth;
  if (typeof auth === 'string' && auth.trim() !== '') {
    headers.authorization = fillText(auth, values);
  } else if (auth && typeof auth === 'object' && auth.is_needed !== false && auth.value) {
    const secret = fillText(auth.value, values);
    if ((auth.location ?? 'header').toLowerCase() === 'query')
      url.searchParams.set(auth.key || 'api_key', secret);
    else headers.authorization = `${auth.key ?? 'Bearer'} ${secret}`.trim();
  }
  let body: string | undefined;
  if (method !== 'GET' && config.json_body_stringified?.trim()) {
    body = fillJsonBody(config.json_body_stringified, values);
    headers['content-type'] ??= 'application/json';
  }
  return { url: url.toString(), method, headers, body };
}

function describeResponse(response: HttpResponse, maxBytes: number): Record<string, unknown> {
  let data: unknown = response.body;
  try {
    data = JSON.parse(response.body);
  } catch {
    // not JSON (or cut off): the text is passed on
  }
  return {
    status: response.status,
    data,
    ...(response.truncated ? { note: `the response was longer than ${maxBytes} bytes and was cut off` } : {}),
  };
}

/** Runs the action once: validation, request, record. Never throws. */
export async function runCustomAction(
  config: CustomActionConfig,
  deps: CustomActionDeps,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<CustomActionRun> {
  const timeoutSeconds =
    config.failure_timeout && config.failure_timeout > 0
      ? config.failure_timeout
      : DEFAULT_FAILURE_TIMEOUT_SECONDS;
  const maxBytes = deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const attempt = deps.recorder?.start(
    {
      name: config.name,
      action_type: CUSTOM_ACTION_TYPE,
      action_id: deps.action_id,
      description: config.description ?? '',
      parameters_hard_coded: {
        http_mode: config.http_mode ?? 'GET',
        url: config.url,
        query_parameters: config.query_parameters ?? [],
        json_body_stringified: config.json_body_stringified ?? '',
      },
      parameters_schema: customActionSchema(config),
      speak_on_failure: config.message_error ?? '',
      run_action_before_call_start: config.run_action_before_call_start ?? false,
      message_before_action: messageBeforeOf(config),
      use_hard_coded_message: messageBeforeOf(config) !== '',
      action_failed_timeout: timeoutSeconds,
    },
    args,
  );
  const fail = (error: string, extra: Record<string, unknown> = {}): CustomActionRun => {
    attempt?.fail(error, extra);
    return { ok: false, result: { ok: false, error, ...extra }, error };
  };
  const checked = checkArgs(config, args);
  if (!checked.ok) return fail(checked.error);
  let request: ReturnType<typeof buildRequest>;
  try {
    request = buildRequest(config, runValues(config, deps.variables, checked.values));
  } catch {
    return fail('the action URL is not valid');
  }
  const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
  let response: HttpResponse;
  try {
    response = await deps.http({
      ...request,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      maxBytes,
    });
  } catch (err) {
    if (timeout.aborted || (err instanceof OutboundHttpError && err.reason === 'timeout')) {
      return fail(`no answer within ${timeoutSeconds} seconds`);
    }
    return fail(err instanceof Error ? err.message : String(err));
  }
  const described = describeResponse(response, maxBytes);
  if (response.status < 200 || response.status > 299)
    return fail(`the server answered ${response.status}`, described);
  attempt?.succeed(described);
  return { ok: true, result: { ok: true, ...described }, error: null };
}

export function createCustomActionTool(config: CustomActionConfig, deps: CustomActionDeps): CustomActionTool {
  return {
    messageBefore: messageBeforeOf(config),
    spec: {
      name: sanitizeToolName(config.name),
      description: config.description || `Runs the action "${config.name}".`,
      parameters: customActionSchema(config),
    },
    async execute(args, context) {
      const run = await runCustomAction(config, deps, args, context.signal);
      return !run.ok && config.message_error
        ? { result: run.result, say: config.message_error }
        : { result: run.result };
    },
  };
}

export interface BeforeCallResult extends CustomActionRun {
  /**
   * For the prompt: `<name>_result` (the response as JSON text), and each top-level scalar
   * field of a JSON object response by its own name. Empty when the run failed.
   */
  variables: ActionVariables;
}

/**
 * Runs an action with `run_action_before_call_start` before the conversation starts: the
 * placeholders are filled from the call's variables only (the model has said nothing yet).
 */
export async function runBeforeCall(
  config: CustomActionConfig,
  deps: CustomActionDeps,
  signal?: AbortSignal,
): Promise<BeforeCallResult> {
  const args: Record<string, unknown> = {};
  for (const v of config.variables_during_the_call ?? []) {
    const value = deps.variables?.[v.name];
    if (value !== undefined) args[v.name] = value;
  }
  const run = await runCustomAction(config, deps, args, signal);
  const variables: ActionVariables = {};
  if (run.ok) {
    const data = run.result.data;
    variables[`${sanitizeToolName(config.name)}_result`] =
      typeof data === 'string' ? data : JSON.stringify(data);
    if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
      for (const [key, value] of Object.entries(data)) {
        if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
          variables[key] = value as string | number | boolean | null;
        }
      }
    }
  }
  return { ...run, variables };
}
