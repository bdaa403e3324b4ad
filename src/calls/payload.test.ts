import { describe, expect, it } from 'vitest';
import type { Call } from '../store/index.ts';
import { postCallPayload } from './payload.ts';

// The post-call payload's `call.agent_version`: a Parley addition saying which agent version ran.

const call: Call = {
  seq: 1,
  id: 'c1',
  workspaceId: 'w1',
  agentId: 'a1',
  agentVersionId: null,
  type: 'outbound',
  status: 'completed',
  endCallReason: 'agent_goodbye',
  customEndCallReason: null,
  errorMessage: null,
  phoneFrom: '+14155550100',
  phoneTo: '+14155551234',
  leadName: 'Ann',
  leadEmail: null,
  leadTimezone: null,
  variables: {},
  metadata: {},
  settings: {},
  webhookUrl: null,
  batchCallId: null,
  batchTaskId: null,
  state: null,
  analysis: null,
  quality: null,
  transcript: '',
  callSid: null,
  node: null,
  holdsSlot: false,
  afterCallPending: false,
  createdAt: 0,
  ringingAt: 0,
  answeredAt: 0,
  endedAt: 1000,
  durationSeconds: 1,
  version: 1,
  updatedAt: 0,
};

describe('postCallPayload agent_version', () => {
  it('names the version that ran, or draft', () => {
    const of = (c: Call) => postCallPayload(c, { includeTimeline: false }).call as { agent_version: string };
    expect(of(call).agent_version).toBe('draft');
    expect(of({ ...call, agentVersionId: 'v-1' }).agent_version).toBe('v-1');
  });
});

describe('postCallPayload cut_short', () => {
  it('says whether the server running the call died mid-call', () => {
    const of = (c: Call) => postCallPayload(c, { includeTimeline: false }).call as { cut_short: boolean };
    expect(of(call).cut_short).toBe(false);
    expect(of({ ...call, status: 'failed', settings: { cut_short: true } }).cut_short).toBe(true);
    expect(of({ ...call, settings: { cut_short: 'yes' } as unknown as Call['settings'] }).cut_short).toBe(
      false,
    );
  });
});
