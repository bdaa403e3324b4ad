import type { Clock } from '../core/index.ts';
import type { CallControlPort, TransferResult } from '../runtime/index.ts';
import type { CallLeg } from '../telephony/index.ts';

// A call's LIVE_TRANSFER port over its carrier leg. The conversation opens before the call is
// answered, so the leg is bound once there is one. A cold transfer hands the call to the carrier
// (SIP REFER, Twilio's <Dial>, the sim's own); it succeeds once the carrier says the target took
// it, and the agent's part of the call then ends. Warm transfers (Parley dialing the target as a
// second leg and bridging) are not built yet: they fail with `transfer_method_unsupported`, and
// the agent says its `failed_msg`.

export interface LegCallControl {
  port: CallControlPort;
  bind(leg: CallLeg): void;
}

export function legCallControl(clock: Clock): LegCallControl {
  let leg: CallLeg | null = null;
  return {
    bind(next) {
      leg = next;
    },
    port: {
      async transfer({ to, mode, timeoutMs }): Promise<TransferResult> {
        if (!leg) return { ok: false, reason: 'carrier_unavailable' };
        if (mode === 'warm') return { ok: false, reason: 'transfer_method_unsupported' };
        const stop = new AbortController();
        const timedOut = clock.sleep(timeoutMs, stop.signal).then(
          () => ({ ok: false, reason: 'destination_unavailable' }) as const,
          () => null,
        );
        try {
          const done = leg.transfer(to).then(
            () => ({ ok: true, humanConnectedAt: clock.now() }) as const,
            () => ({ ok: false, reason: 'transfer_blocked_by_carrier' }) as const,
          );
          return (await Promise.race([done, timedOut])) ?? (await done);
        } finally {
          stop.abort();
        }
      },
    },
  };
}
