import { describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../src/core/index.ts';
import { createSimMessaging, type Messaging, type SimMessaging } from '../../src/providers/index.ts';
import {
  ActionRecorder,
  createInCallSmsTool,
  createInCallWhatsAppTool,
  sendAfterConversation,
  type MessagingPort,
  type ReplyPort,
} from '../../src/actions/index.ts';

const LEAD = '+14155550100';
const OURS = '+14155550199';

// The providers' Messaging fits the port as is.
const _fits: (m: Messaging) => MessagingPort = (m) => m;

/** Replies through the sim's inbound receivers. */
function simReplies(sim: SimMessaging): ReplyPort {
  return {
    waitForReply: (query, signal) =>
      new Promise((resolve, reject) => {
        const off = sim.onInbound((m) => {
          if (m.from === query.from && m.to === query.to && m.channel === query.channel) {
            off();
            resolve({ body: m.body });
          }
        });
        signal.addEventListener('abort', () => {
          off();
          reject(new Error('aborted'));
        });
      }),
  };
}

const setup = () => {
  const clock = createManualClock();
  const sim = createSimMessaging({ clock });
  const recorder = new ActionRecorder({ call_id: 'c', model_id: 'm', workspace_id: 'w' }, { clock });
  return {
    clock,
    sim,
    recorder,
    deps: { messaging: sim, from: OURS, to: LEAD, recorder, clock, variables: { first_name: 'Ada' } },
  };
};

describe('SEND_SMS after the conversation', () => {
  it('sends the content with placeholders filled and records under the exact name', async () => {
    const { sim, recorder, deps } = setup();
    const run = await sendAfterConversation(
      { name: 'Récap 📩', content: 'Thanks {first_name}!', instructions: 'always' },
      deps,
    );
    expect(run.ok).toBe(true);
    expect(sim.sent()).toMatchObject([{ channel: 'sms', from: OURS, to: LEAD, body: 'Thanks Ada!' }]);
    expect(recorder.executedActions['Récap 📩']).toMatchObject({
      action_type: 'send_sms_action_type',
      error_message: null,
    });
    expect(recorder.timeline).toMatchObject([{ name: 'Récap 📩', status: 'success' }]);
  });

  it('skips when shouldSend says no, and records a provider failure', async () => {
    const { sim, recorder, deps } = setup();
    const skipped = await sendAfterConversation(
      { name: 'n', content: 'x' },
      { ...deps, shouldSend: async () => false },
    );
    expect(skipped).toMatchObject({ ok: true, skipped: true });
    expect(sim.sent()).toEqual([]);
    const failed = await sendAfterConversation({ name: 'n', content: 'x' }, { ...deps, to: '+14155552222' });
    expect(failed.ok).toBe(false);
    expect(recorder.timeline).toMatchObject([
      { name: 'n', status: 'failed', failed_reason: expect.any(String) },
    ]);
  });
});

describe('INCALL_SMS / INCALL_WHATSAPP tools', () => {
  it('sends the message body; the tool name is sanitized, the record key exact', async () => {
    const { sim, recorder, deps } = setup();
    const tool = createInCallSmsTool(
      { name: 'Envoyer le lien ✉', message_body: 'Hi {first_name}, here is the link' },
      deps,
    );
    expect(tool.spec.name).toBe('Envoyer_le_lien');
    const out = await tool.execute({}, {});
    expect(out.result).toMatchObject({ ok: true, status: expect.any(String) });
    expect(sim.sent()).toMatchObject([{ channel: 'sms', to: LEAD, body: 'Hi Ada, here is the link' }]);
    expect(recorder.executedActions['Envoyer le lien ✉']).toMatchObject({
      action_type: 'incall_sms_action_type',
    });
  });

  it('sends a WhatsApp template by content_sid', async () => {
    const { sim, recorder, deps } = setup();
    const tool = createInCallWhatsAppTool({ name: 'wa', content_sid: 'HX0123' }, deps);
    await tool.execute({}, {});
    expect(sim.sent()).toMatchObject([{ channel: 'whatsapp', to: LEAD, template: { contentSid: 'HX0123' } }]);
    expect(recorder.timeline).toMatchObject([
      { action_type: 'incall_whatsapp_action_type', status: 'success' },
    ]);
  });

  it('fills the template content_variables ({name} or <name>) and says message_before_action first', async () => {
    const { sim, deps } = setup();
    const tool = createInCallWhatsAppTool(
      {
        name: 'wa',
        content_sid: 'HX0123',
        content_variables: { '1': '<first_name>', '2': 'Dear {first_name}', '3': '<unknown>' },
        message_before_action: 'Sending it now.',
      },
      deps,
    );
    expect(tool.messageBefore).toBe('Sending it now.');
    await tool.execute({}, {});
    expect(sim.sent()).toMatchObject([
      {
        channel: 'whatsapp',
        template: { contentSid: 'HX0123', variables: { '1': 'Ada', '2': 'Dear Ada', '3': '<unknown>' } },
      },
    ]);
  });

  it('says fallback_message when no reply comes in time', async () => {
    const { sim, deps, clock } = setup();
    const tool = createInCallSmsTool(
      {
        name: 'ask',
        message_body: 'Hi <first_name>, reply?',
        wait_for_reply: true,
        timeout_seconds: 5,
        fallback_message: 'I did not get your reply.',
      },
      { ...deps, replies: simReplies(sim) },
    );
    const pending = tool.execute({}, {});
    await vi.waitFor(() => expect(sim.sent()).toHaveLength(1));
    expect(sim.sent()[0]?.body).toBe('Hi Ada, reply?');
    await clock.tick(5_000);
    expect(await pending).toMatchObject({
      result: { ok: false, error: 'timeout' },
      say: 'I did not get your reply.',
    });
  });

  it('waits for the reply when asked', async () => {
    const { sim, recorder, deps } = setup();
    const tool = createInCallSmsTool(
      { name: 'ask', message_body: 'Reply YES to confirm', wait_for_reply: true, timeout_seconds: 2 },
      { ...deps, replies: simReplies(sim) },
    );
    const pending = tool.execute({}, {});
    await vi.waitFor(() => expect(sim.sent()).toHaveLength(1));
    await sim.deliverInbound({ channel: 'sms', from: LEAD, to: OURS, body: 'YES' });
    const out = await pending;
    expect(out.result).toMatchObject({ ok: true, reply: 'YES' });
    expect(recorder.timeline).toMatchObject([{ status: 'success' }]);
    expect(recorder.executedActions.ask?.return_value).toMatchObject({ reply: 'YES' });
  });

  it('fails with reason timeout when no reply comes in time', async () => {
    const { sim, recorder, deps, clock } = setup();
    const tool = createInCallWhatsAppTool(
      { name: 'ask', message_body: 'Reply?', wait_for_reply: true, timeout_seconds: 30 },
      { ...deps, replies: simReplies(sim) },
    );
    const pending = tool.execute({}, {});
    await clock.tick(29_999);
    expect(recorder.timeline).toMatchObject([{ status: 'started' }]);
    await clock.tick(1);
    const out = await pending;
    expect(out.result).toMatchObject({ ok: false, error: 'timeout' });
    expect(sim.sent()).toHaveLength(1);
    expect(recorder.timeline).toMatchObject([{ status: 'failed', failed_reason: 'timeout' }]);
  });

  it('fails without a number, with an empty message, or without a reply port', async () => {
    const { recorder, deps } = setup();
    expect(
      (await createInCallSmsTool({ name: 'a', message_body: 'x' }, { ...deps, to: '' }).execute({}, {}))
        .result,
    ).toMatchObject({ ok: false });
    expect(
      (await createInCallSmsTool({ name: 'b', message_body: '  ' }, deps).execute({}, {})).result,
    ).toMatchObject({ ok: false });
    expect(
      (
        await createInCallSmsTool({ name: 'c', message_body: 'x', wait_for_reply: true }, deps).execute(
          {},
          {},
        )
      ).result,
    ).toMatchObject({
      ok: false,
      error: 'replies_unavailable',
    });
    expect(recorder.timeline.map((t) => t.status)).toEqual(['failed', 'failed', 'failed']);
  });
});
