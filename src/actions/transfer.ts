import {
  WEEKDAY_NAMES,
  systemClock,
  toIso,
  type Clock,
  type HumanAvailability,
  type LiveTransferConfig,
  type WeekdayName,
} from '../core/index.ts';
import type {
  CallControlPort,
  TransferFailedReason,
  TransferMode,
  TransferReport,
  TransferResult,
} from './ports.ts';
import type { ActionRecorder } from './recorder.ts';
import { sanitizeToolName, type ActionTool } from './types.ts';
import { isValidTimeZone, wallTime } from '../core/index.ts';

// LIVE_TRANSFER (WIRE.md section 8) as a tool over a `CallControlPort`. `initiating_msg` is said
// before the transfer starts (through `say`, and exposed as `messageBefore`); `failed_msg` is the
// outcome's `say` when it fails. The failure cause is one of the spec's transfer
// `failed_reason` values; a warm transfer that connects records `human_connected_at`.
// A warm transfer tells the target `message_to_transfer_target` (with context: a summary of the
// call so far, after the message) and sends `digits` once it answers; the caller hears hold music
// with `enable_background_music`. A transfer that connects ends the agent's part of the call, and
// its record (timeline entry and return value) says how it went (`transfer`: target, mode,
// method, outcome, the times of its steps). An action that names a `phone_book_id` and no
// `phone` fails with `number_not_found` (Parley has no phone books). With an active
// `human_availability`, a transfer asked for outside its schedule fails with
// `destination_unavailable` and the agent says `unavailable_message` (else `failed_msg`).

export const TRANSFER_ACTION_TYPE = 'transfer_call_action_type';
export const DEFAULT_TRANSFER_TIMEOUT_SECONDS = 30;

/**
 * The stored configuration (src/core/action-config.ts): `phone` is absent when the action names a
 * phone book instead; `digits` are keys to send once the target answers (an extension);
 * `timeout` is in seconds; `human_availability` is when people take transfers (`HH:MM` intervals
 * per weekday, in its `timezone`).
 */
export { WEEKDAY_NAMES, type HumanAvailability, type LiveTransferConfig, type WeekdayName };

export interface LiveTransferDeps {
  callControl: CallControlPort;
  recorder?: ActionRecorder;
  /** Speaks a line now (before the transfer starts). */
  say?: (text: string) => Promise<void> | void;
  action_id?: string;
  /** For `human_availability` (default: the system clock). */
  clock?: Clock;
  /** A summary of the conversation so far, for `warm_transfer_with_context`. */
  summarize?: (prompt: string | undefined) => Promise<string>;
}

const minutesOf = (hhmm: string): number => {
  const [h = '0', m = '0'] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
};

/** Whether `availability` (when active) lets a transfer happen at `ms`. */
export function isHumanAvailable(availability: HumanAvailability | undefined, ms: number): boolean {
  if (!availability?.active) return true;
  const zone = isValidTimeZone(availability.timezone) ? availability.timezone : 'UTC';
  const now = wallTime(ms, zone);
  const day = WEEKDAY_NAMES[now.weekday];
  const minute = now.hour * 60 + now.minute;
  return availability.schedule.some(
    (entry) =>
      entry.weekday === day &&
      entry.interval.some((i) => minute >= minutesOf(i.from) && minute < minutesOf(i.to)),
  );
}

/** What the target hears first: the message, then (with context) the summary of the call. */
async function briefingOf(
  config: LiveTransferConfig,
  summarize: LiveTransferDeps['summarize'],
): Promise<string> {
  const message = config.message_to_transfer_target?.trim() ?? '';
  if (config.transfer_mode !== 'warm_transfer_with_context' || !summarize) return message;
  const summary = (await summarize(config.summarization_prompt).catch(() => '')).trim();
  return [message, summary].filter(Boolean).join(' ');
}

const isoOrNull = (ms: number | undefined) => (ms === undefined ? null : toIso(ms));

function reportFields(report: TransferReport): Record<string, unknown> {
  return {
    method: report.method,
    ...(report.fellBackFrom ? { fell_back_from: report.fellBackFrom } : {}),
    dialed_at: isoOrNull(report.dialedAt),
    answered_at: isoOrNull(report.answeredAt),
    bridged_at: isoOrNull(report.bridgedAt),
    ended_at: isoOrNull(report.endedAt),
    ...(report.endedBy ? { ended_by: report.endedBy } : {}),
    ...(report.detail ? { detail: report.detail } : {}),
  };
}

export interface LiveTransferTool extends ActionTool {
  readonly messageBefore: string;
}

export function createLiveTransferTool(config: LiveTransferConfig, deps: LiveTransferDeps): LiveTransferTool {
  const mode: TransferMode = config.transfer_mode?.startsWith('warm_transfer') ? 'warm' : 'cold';
  const clock = deps.clock ?? systemClock;
  const timeoutSeconds =
    config.timeout && config.timeout > 0 ? config.timeout : DEFAULT_TRANSFER_TIMEOUT_SECONDS;
  const schema = { type: 'object', properties: {}, additionalProperties: false };
  return {
    messageBefore: config.initiating_msg ?? '',
    spec: {
      name: sanitizeToolName(config.name),
      description: config.instructions || `Transfers the call to a human ("${config.name}").`,
      parameters: schema,
    },
    async execute(args) {
      const attempt = deps.recorder?.start(
        {
          name: config.name,
          action_type: TRANSFER_ACTION_TYPE,
          action_id: deps.action_id,
          description: config.instructions ?? '',
          parameters_hard_coded: {
            phone: config.phone ?? '',
            ...(config.phone_book_id ? { phone_book_id: config.phone_book_id } : {}),
            transfer_mode: config.transfer_mode ?? 'cold_transfer',
            timeout: timeoutSeconds,
          },
          parameters_schema: schema,
          speak_on_failure: config.failed_msg ?? '',
          message_before_action: config.initiating_msg ?? '',
          use_hard_coded_message: Boolean(config.initiating_msg),
          action_failed_timeout: timeoutSeconds,
        },
        args,
      );
      const failed = (reason: TransferFailedReason, say = config.failed_msg) => {
        attempt?.fail(reason);
        const result = { ok: false, failed_reason: reason };
        return say ? { result, say } : { result };
      };
      if (!isHumanAvailable(config.human_availability, clock.now())) {
        return failed(
          'destination_unavailable',
          config.human_availability?.unavailable_message || config.failed_msg,
        );
      }
      if (!config.phone) return failed('number_not_found');
      if (config.initiating_msg && deps.say) await deps.say(config.initiating_msg);
      const target = config.phone;
      const course = (report: TransferReport | undefined, outcome: string) => ({
        target,
        mode: config.transfer_mode ?? 'cold_transfer',
        outcome,
        ...(report ? reportFields(report) : {}),
      });
      let outcome: TransferResult;
      try {
        outcome = await deps.callControl.transfer({
          to: target,
          mode,
          timeoutMs: timeoutSeconds * 1000,
          ...(config.digits ? { digits: config.digits } : {}),
          ...(config.enable_background_music ? { holdMusic: true } : {}),
          ...(mode === 'warm' ? { briefing: () => briefingOf(config, deps.summarize) } : {}),
        });
      } catch {
        outcome = { ok: false, reason: 'carrier_unavailable' };
      }
      if (!outcome.ok) {
        attempt?.annotate({ transfer: course(outcome.report, outcome.reason) });
        return failed(outcome.reason);
      }
      const value: Record<string, unknown> = { transferred: true, mode };
      const connectedAt = outcome.humanConnectedAt !== undefined ? toIso(outcome.humanConnectedAt) : null;
      if (connectedAt) value.human_connected_at = connectedAt;
      attempt?.succeed(value);
      attempt?.annotate({
        ...(connectedAt ? { human_connected_at: connectedAt } : {}),
        transfer: course(outcome.report, 'connected'),
      });
      void outcome.ended?.then((report) => attempt?.annotate({ transfer: course(report, 'connected') }));
      return { result: { ok: true, ...value }, endsConversation: true };
    },
  };
}
