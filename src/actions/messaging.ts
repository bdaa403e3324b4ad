import { systemClock, type Clock, type InCallMessageConfig, type SendSmsConfig } from '../core/index.ts';
import type { MessagingChannel, MessagingPort, OutboundMessage, ReplyPort } from './ports.ts';
import type { ActionRecorder } from './recorder.ts';
import { fillText } from './template.ts';
import { sanitizeToolName, type ActionTool, type ActionVariables } from './types.ts';

// SEND_SMS (after the conversation), INCALL_SMS and INCALL_WHATSAPP (tools during it), sent
// through a `MessagingPort` to the lead's number (WIRE.md section 8). Names are kept exactly as
// typed for the record; tool names are sanitized for the model. With `wait_for_reply` the
// in-call tool waits up to `timeout_seconds` for the lead's answer through the `ReplyPort`; none
// in time is a failed attempt with reason `timeout` (and the agent says `fallback_message` when
// set). Placeholders (`{name}` or `<name>`, template.ts) in the message text and in a WhatsApp
// template's `content_variables` are filled from the conversation's variables; an in-call
// message's `message_before_action` is said before it is sent.

export const SEND_SMS_ACTION_TYPE = 'send_sms_action_type';
export const INCALL_SMS_ACTION_TYPE = 'incall_sms_action_type';
export const INCALL_WHATSAPP_ACTION_TYPE = 'incall_whatsapp_action_type';
export const DEFAULT_REPLY_TIMEOUT_SECONDS = 60;

/**
 * The stored configurations (src/core/action-config.ts). A SEND_SMS's `instructions` say when to
 * send (judged by the caller's `shouldSend`, when given). An in-call message's
 * `content_variables` are the template's variables by position (`{"1": "<user_name>"}`; values are
 * templates); `fallback_message` is said when no reply comes within `timeout_seconds`,
 * `message_before_action` before the message is sent.
 */
export type { InCallMessageConfig, SendSmsConfig };

export interface MessagingActionDeps {
  messaging: MessagingPort;
  /** Our number (E.164). */
  from: string;
  /** The lead's number (E.164). */
  to: string;
  recorder?: ActionRecorder;
  variables?: ActionVariables;
  action_id?: string;
  clock?: Clock;
}

export interface InCallMessageDeps extends MessagingActionDeps {
  replies?: ReplyPort;
}

export interface MessageRun {
  ok: boolean;
  result: Record<string, unknown>;
  error: string | null;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function buildMessage(
  channel: MessagingChannel,
  deps: MessagingActionDeps,
  body: string | undefined,
  template?: { contentSid?: string; variables?: Record<string, string> },
): OutboundMessage | string {
  if (!deps.to) return 'the lead has no phone number';
  const values = deps.variables ?? {};
  if (template?.contentSid) {
    const variables = Object.entries(template.variables ?? {}).map(
      ([key, value]) => [key, fillText(String(value), values)] as const,
    );
    return {
      channel,
      from: deps.from,
      to: deps.to,
      template: {
        contentSid: template.contentSid,
        ...(variables.length > 0 ? { variables: Object.fromEntries(variables) } : {}),
      },
    };
  }
  const filled = body ? fillText(body, values).trim() : '';
  if (filled) return { channel, from: deps.from, to: deps.to, body: filled };
  return 'the message is empty';
}

/**
 * SEND_SMS: sends `content` (placeholders filled) to the lead once the conversation is over.
 * `shouldSend`, when given, decides from `instructions` (e.g. with the model); false skips it
 * (nothing recorded).
 */
export async function sendAfterConversation(
  config: SendSmsConfig,
  deps: MessagingActionDeps & {
    shouldSend?: (instructions: string) => Promise<boolean>;
    signal?: AbortSignal;
  },
): Promise<MessageRun & { skipped?: boolean }> {
  if (deps.shouldSend && !(await deps.shouldSend(config.instructions ?? ''))) {
    return { ok: true, skipped: true, result: { ok: true, skipped: true }, error: null };
  }
  const attempt = deps.recorder?.start(
    {
      name: config.name,
      action_type: SEND_SMS_ACTION_TYPE,
      action_id: deps.action_id,
      description: config.instructions ?? '',
      parameters_hard_coded: { content: config.content, instructions: config.instructions ?? '' },
      real_time_action: false,
    },
    {},
  );
  const message = buildMessage('sms', deps, config.content);
  if (typeof message === 'string') {
    attempt?.fail(message);
    return { ok: false, result: { ok: false, error: message }, error: message };
  }
  try {
    const sent = await deps.messaging.send(message, { signal: deps.signal });
    const value = { message_id: sent.id, status: sent.status };
    attempt?.succeed(value);
    return { ok: true, result: { ok: true, ...value }, error: null };
  } catch (err) {
    const error = errorText(err);
    attempt?.fail(error);
    return { ok: false, result: { ok: false, error }, error };
  }
}

function createInCallMessageTool(
  channel: MessagingChannel,
  actionType: string,
  config: InCallMessageConfig,
  deps: InCallMessageDeps,
): ActionTool {
  const clock = deps.clock ?? systemClock;
  const schema = { type: 'object', properties: {}, additionalProperties: false };
  const label = channel === 'sms' ? 'an SMS' : 'a WhatsApp message';
  const timeoutSeconds =
    config.timeout_seconds && config.timeout_seconds > 0
      ? config.timeout_seconds
      : DEFAULT_REPLY_TIMEOUT_SECONDS;
  const fallback = config.fallback_message?.trim() ?? '';
  return {
    messageBefore: config.message_before_action?.trim() ?? '',
    spec: {
      name: sanitizeToolName(config.name),
      description:
        config.description ||
        `Sends ${label} ("${config.name}") to the lead's phone` +
          (config.wait_for_reply ? ' and waits for their reply.' : '.'),
      parameters: schema,
    },
    async execute(args, context) {
      const attempt = deps.recorder?.start(
        {
          name: config.name,
          action_type: actionType,
          action_id: deps.action_id,
          parameters_hard_coded: {
            message_body: config.message_body ?? '',
            content_sid: config.content_sid ?? '',
            content_variables: config.content_variables ?? {},
            wait_for_reply: config.wait_for_reply ?? false,
            timeout_seconds: timeoutSeconds,
          },
          parameters_schema: schema,
          action_failed_timeout: config.wait_for_reply ? timeoutSeconds : 0,
        },
        args,
      );
      const fail = (error: string, extra: Record<string, unknown> = {}) => {
        attempt?.fail(error, extra);
        return { result: { ok: false, error, ...extra } };
      };
      const message = buildMessage(channel, deps, config.message_body, {
        contentSid: config.content_sid,
        variables: config.content_variables,
      });
      if (typeof message === 'string') return fail(message);
      if (config.wait_for_reply && !deps.replies) return fail('replies_unavailable');
      const sinceMs = clock.now();
      let sent;
      try {
        sent = await deps.messaging.send(message, { signal: context.signal });
      } catch (err) {
        return fail(errorText(err));
      }
      const value: Record<string, unknown> = { message_id: sent.id, status: sent.status };
      if (config.wait_for_reply && deps.replies) {
        const waiting = new AbortController();
        const abort = () => waiting.abort();
        context.signal?.addEventListener('abort', abort, { once: true });
        // The wait goes through the clock (a manual clock in tests) and ends with the reply race.
        const timedOut = clock.sleep(timeoutSeconds * 1000, waiting.signal).then(
          () => 'timeout' as const,
          () => 'timeout' as const,
        );
        try {
          const reply = await Promise.race([
            deps.replies.waitForReply({ channel, from: deps.to, to: deps.from, sinceMs }, waiting.signal),
            timedOut,
          ]);
          if (reply === 'timeout') {
            const failed = fail('timeout', value);
            return fallback ? { ...failed, say: fallback } : failed;
          }
          value.reply = reply.body;
        } catch (err) {
          return fail(context.signal?.aborted ? 'aborted' : errorText(err), value);
        } finally {
          waiting.abort();
          context.signal?.removeEventListener('abort', abort);
        }
      }
      attempt?.succeed(value);
      return { result: { ok: true, ...value } };
    },
  };
}

export function createInCallSmsTool(config: InCallMessageConfig, deps: InCallMessageDeps): ActionTool {
  return createInCallMessageTool('sms', INCALL_SMS_ACTION_TYPE, config, deps);
}

export function createInCallWhatsAppTool(config: InCallMessageConfig, deps: InCallMessageDeps): ActionTool {
  return createInCallMessageTool('whatsapp', INCALL_WHATSAPP_ACTION_TYPE, config, deps);
}
