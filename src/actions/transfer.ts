import { toIso } from '../core/index.ts';
import type { CallControlPort, TransferMode } from './ports.ts';
import type { ActionRecorder } from './recorder.ts';
import { sanitizeToolName, type ActionTool } from './types.ts';

// LIVE_TRANSFER (WIRE.md section 8) as a tool over a `CallControlPort`. `initiating_msg` is said
// before the transfer starts (through `say`, and exposed as `messageBefore`); `failed_msg` is the
// outcome's `say` when it fails. The failure cause is one of the spec's transfer
// `failed_reason` values; a warm transfer that connects records `human_connected_at`.

export const TRANSFER_ACTION_TYPE = 'transfer_call_action_type';
export const DEFAULT_TRANSFER_TIMEOUT_SECONDS = 30;

export interface LiveTransferConfig {
  name: string;
  phone: string;
  transfer_mode?: 'cold_transfer' | 'warm_transfer';
  instructions?: string;
  initiating_msg?: string;
  failed_msg?: string;
  /** Seconds. */
  timeout?: number;
}

export interface LiveTransferDeps {
  callControl: CallControlPort;
  recorder?: ActionRecorder;
  /** Speaks a line now (before the transfer starts). */
  say?: (text: string) => Promise<void> | void;
  action_id?: string;
}

export interface LiveTransferTool extends ActionTool {
  readonly messageBefore: string;
}

export function createLiveTransferTool(config: LiveTransferConfig, deps: LiveTransferDeps): LiveTransferTool {
  const mode: TransferMode = config.transfer_mode === 'warm_transfer' ? 'warm' : 'cold';
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
            phone: config.phone,
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
      if (config.initiating_msg && deps.say) await deps.say(config.initiating_msg);
      let outcome;
      try {
        outcome = await deps.callControl.transfer({
          to: config.phone,
          mode,
          timeoutMs: timeoutSeconds * 1000,
        });
      } catch {
        outcome = { ok: false as const, reason: 'carrier_unavailable' as const };
      }
      if (!outcome.ok) {
        attempt?.fail(outcome.reason);
        const result = { ok: false, failed_reason: outcome.reason };
        return config.failed_msg ? { result, say: config.failed_msg } : { result };
      }
      const value: Record<string, unknown> = { transferred: true, mode };
      if (outcome.humanConnectedAt !== undefined) value.human_connected_at = toIso(outcome.humanConnectedAt);
      attempt?.succeed(value);
      return { result: { ok: true, ...value } };
    },
  };
}
