import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import {
  ActionRecorder,
  TRANSFER_FAILED_REASONS,
  chatCallControl,
  createLiveTransferTool,
  type CallControlPort,
  type TransferReport,
  type TransferResult,
} from './index.ts';

const setup = (result: TransferResult) => {
  const clock = createManualClock(Date.UTC(2026, 2, 2, 15));
  const recorder = new ActionRecorder({ call_id: 'c', model_id: 'm', workspace_id: 'w' }, { clock });
  const requests: unknown[] = [];
  const said: string[] = [];
  const callControl: CallControlPort = {
    async transfer(request) {
      requests.push(request);
      said.push('<transfer>');
      return result;
    },
  };
  return {
    clock,
    recorder,
    requests,
    said,
    deps: { callControl, recorder, say: (t: string) => void said.push(t) },
  };
};

const config = {
  name: 'Équipe ventes → humain',
  phone: '+14155550111',
  transfer_mode: 'warm_transfer' as const,
  instructions: 'Transfer when the lead asks for a human.',
  initiating_msg: 'Let me connect you.',
  failed_msg: 'Sorry, nobody is available.',
  timeout: 20,
};

describe('LIVE_TRANSFER tool', () => {
  it('says initiating_msg first, transfers warm and records human_connected_at', async () => {
    const connected = Date.UTC(2026, 2, 2, 15, 0, 12);
    const { recorder, requests, said, deps } = setup({ ok: true, humanConnectedAt: connected });
    const tool = createLiveTransferTool(config, deps);
    expect(tool.spec.name).toBe('quipe_ventes_humain');
    expect(tool.spec.description).toBe(config.instructions);
    expect(tool.messageBefore).toBe('Let me connect you.');
    const out = await tool.execute({}, {});
    expect(said).toEqual(['Let me connect you.', '<transfer>']);
    expect(requests).toEqual([
      { to: '+14155550111', mode: 'warm', timeoutMs: 20_000, briefing: expect.any(Function) },
    ]);
    expect(out).toEqual({
      result: { ok: true, transferred: true, mode: 'warm', human_connected_at: '2026-03-02T15:00:12.000Z' },
      // The person has the call: the agent's part is over.
      endsConversation: true,
    });
    expect(recorder.executedActions[config.name]).toMatchObject({
      action_type: 'transfer_call_action_type',
      return_value: { human_connected_at: '2026-03-02T15:00:12.000Z' },
    });
    expect(recorder.timeline).toMatchObject([{ name: config.name, status: 'success', failed_reason: null }]);
  });

  it.each(TRANSFER_FAILED_REASONS)(
    'a failure %s says failed_msg and is recorded with the reason',
    async (reason) => {
      const { recorder, deps } = setup({ ok: false, reason });
      const out = await createLiveTransferTool({ ...config, transfer_mode: 'cold_transfer' }, deps).execute(
        {},
        {},
      );
      expect(out).toEqual({
        result: { ok: false, failed_reason: reason },
        say: 'Sorry, nobody is available.',
      });
      expect(recorder.timeline).toMatchObject([{ status: 'failed', failed_reason: reason }]);
    },
  );

  it('chats cannot transfer: transfer_method_unsupported, attempts numbered', async () => {
    const clock = createManualClock();
    const recorder = new ActionRecorder({ call_id: 'chat', model_id: 'm', workspace_id: 'w' }, { clock });
    const tool = createLiveTransferTool(
      { name: 'human', phone: '+14155550111' },
      { callControl: chatCallControl, recorder },
    );
    const first = await tool.execute({}, {});
    await tool.execute({}, {});
    expect(first).toEqual({ result: { ok: false, failed_reason: 'transfer_method_unsupported' } });
    expect(recorder.timeline.map((t) => [t.attempt, t.status, t.failed_reason])).toEqual([
      [1, 'failed', 'transfer_method_unsupported'],
      [2, 'failed', 'transfer_method_unsupported'],
    ]);
  });

  it('transfers warm_transfer_with_context warm, briefing the target with the message and a summary', async () => {
    const { requests, deps } = setup({ ok: true });
    const prompts: (string | undefined)[] = [];
    const summarize = async (prompt: string | undefined) => {
      prompts.push(prompt);
      return 'Ada wants to move her appointment.';
    };
    await createLiveTransferTool(
      {
        ...config,
        transfer_mode: 'warm_transfer_with_context',
        message_to_transfer_target: 'A caller from the booking line.',
        summarization_prompt: 'Name the caller first.',
        digits: '12w#',
        enable_background_music: true,
      },
      { ...deps, summarize },
    ).execute({}, {});
    expect(requests).toEqual([
      {
        to: config.phone,
        mode: 'warm',
        timeoutMs: 20_000,
        digits: '12w#',
        holdMusic: true,
        briefing: expect.any(Function),
      },
    ]);
    const request = requests[0] as { briefing: () => Promise<string> };
    expect(await request.briefing()).toBe(
      'A caller from the booking line. Ada wants to move her appointment.',
    );
    expect(prompts).toEqual(['Name the caller first.']);
  });

  it('a plain warm transfer tells the target only its message; a cold one has no briefing', async () => {
    const warm = setup({ ok: true });
    const summarize = async () => 'never asked';
    await createLiveTransferTool(
      { ...config, message_to_transfer_target: 'Incoming transfer.' },
      { ...warm.deps, summarize },
    ).execute({}, {});
    const request = warm.requests[0] as { briefing: () => Promise<string> };
    expect(await request.briefing()).toBe('Incoming transfer.');
    const cold = setup({ ok: true });
    await createLiveTransferTool({ ...config, transfer_mode: 'cold_transfer' }, cold.deps).execute({}, {});
    expect(cold.requests).toEqual([{ to: config.phone, mode: 'cold', timeoutMs: 20_000 }]);
  });

  it("records the transfer's course in the timeline, completed when the bridged call ends", async () => {
    const at = (s: number) => Date.UTC(2026, 2, 2, 15, 0, s);
    let finish: (report: TransferReport) => void = () => undefined;
    const ended = new Promise<TransferReport>((resolve) => (finish = resolve));
    const { recorder, deps } = setup({
      ok: true,
      humanConnectedAt: at(9),
      report: {
        method: 'bridge',
        fellBackFrom: 'refer',
        dialedAt: at(3),
        answeredAt: at(9),
        bridgedAt: at(11),
      },
      ended,
    });
    await createLiveTransferTool(config, deps).execute({}, {});
    const course = {
      target: config.phone,
      mode: 'warm_transfer',
      outcome: 'connected',
      method: 'bridge',
      fell_back_from: 'refer',
      dialed_at: '2026-03-02T15:00:03.000Z',
      answered_at: '2026-03-02T15:00:09.000Z',
      bridged_at: '2026-03-02T15:00:11.000Z',
      ended_at: null,
    };
    expect(recorder.timeline).toMatchObject([
      { status: 'success', human_connected_at: '2026-03-02T15:00:09.000Z', transfer: course },
    ]);
    finish({
      method: 'bridge',
      fellBackFrom: 'refer',
      dialedAt: at(3),
      answeredAt: at(9),
      bridgedAt: at(11),
      endedAt: at(40),
      endedBy: 'target',
    });
    await ended;
    await Promise.resolve();
    const final = { ...course, ended_at: '2026-03-02T15:00:40.000Z', ended_by: 'target' };
    expect(recorder.timeline).toMatchObject([{ transfer: final }]);
    expect(recorder.executedActions[config.name]?.return_value).toMatchObject({ transfer: final });
  });

  it('records why a transfer failed, with the detail the carrier gave', async () => {
    const { recorder, deps } = setup({
      ok: false,
      reason: 'rejected_by_destination',
      report: { method: 'bridge', dialedAt: Date.UTC(2026, 2, 2, 15), detail: 'the target was busy' },
    });
    await createLiveTransferTool(config, deps).execute({}, {});
    expect(recorder.timeline).toMatchObject([
      {
        status: 'failed',
        failed_reason: 'rejected_by_destination',
        transfer: { outcome: 'rejected_by_destination', method: 'bridge', detail: 'the target was busy' },
      },
    ]);
  });

  it('fails with number_not_found when only a phone book is named (no carrier call)', async () => {
    const { requests, recorder, deps } = setup({ ok: true });
    const { phone: _phone, ...rest } = config;
    const out = await createLiveTransferTool({ ...rest, phone_book_id: 'pb_1' }, deps).execute({}, {});
    expect(out).toEqual({
      result: { ok: false, failed_reason: 'number_not_found' },
      say: 'Sorry, nobody is available.',
    });
    expect(requests).toEqual([]);
    expect(recorder.timeline).toMatchObject([{ status: 'failed', failed_reason: 'number_not_found' }]);
  });

  it('transfers only within human_availability (in its time zone) when it is active', async () => {
    // The setup's clock: Monday 2026-03-02 15:00 UTC, 16:00 in Berlin.
    const availability = (from: string, to: string, active = true) => ({
      timezone: 'Europe/Berlin',
      schedule: [
        { weekday: 'tuesday' as const, interval: [{ from: '00:00', to: '24:00' }] },
        { weekday: 'monday' as const, interval: [{ from, to }] },
      ],
      unavailable_message: 'We are closed now.',
      active,
    });
    const run = async (human_availability: ReturnType<typeof availability>) => {
      const { requests, deps, clock } = setup({ ok: true });
      const out = await createLiveTransferTool({ ...config, human_availability }, { ...deps, clock }).execute(
        {},
        {},
      );
      return { out, transferred: requests.length };
    };
    expect(await run(availability('09:00', '16:01'))).toMatchObject({
      transferred: 1,
      out: { result: { ok: true } },
    });
    expect(await run(availability('09:00', '16:00'))).toEqual({
      transferred: 0,
      out: { result: { ok: false, failed_reason: 'destination_unavailable' }, say: 'We are closed now.' },
    });
    expect(await run(availability('16:30', '18:00'))).toMatchObject({ transferred: 0 });
    expect(await run(availability('16:30', '18:00', false))).toMatchObject({ transferred: 1 });
  });
});
