import { toIso } from '../../core/index.ts';
import type { RecentCall } from '../analytics.ts';
import type { RecentCallHistory } from './report.ts';

// `recent_call_history`: the range's most recent calls as published (the lead's number is the
// caller for inbound calls, the callee otherwise).

export function recentCallHistory(recent: readonly RecentCall[]): RecentCallHistory {
  return {
    items: recent.map((c) => ({
      call_id: c.id,
      call_status: c.status,
      duration: c.durationSeconds ?? 0,
      agent_name: c.agentName ?? '',
      model_id: c.agentId,
      lead_phone_number: c.type === 'inbound' ? c.phoneFrom : c.phoneTo,
      created_at: toIso(c.createdAt),
    })),
  };
}
