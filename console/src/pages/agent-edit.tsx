import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../sdk/index.ts';
import { CheckField } from '../form.tsx';
import { go, href } from '../router.ts';
import { describe, fieldError, parley, unwrap } from '../session.ts';
import { ErrorNote, Field, Loading, Page, useLoad } from '../ui.tsx';
import { AgentAttachments } from './agent-attachments.tsx';
import { AgentVersions } from './agent-versions.tsx';
import { Chat } from './chat.tsx';
import { TestCall } from './test-call.tsx';
import { VoicePreview } from './voice-preview.tsx';

// Create or edit an agent: its prompt, greeting and mode, voice (with a preview), language,
// interruption and endpointing settings, recording and webhook; then its actions, knowledge base
// and versions on their own tabs.

type Agent = components['schemas']['Agent'];

interface Form {
  name: string;
  type: 'outbound' | 'inbound' | 'widget' | 'chat';
  phone_number: string;
  is_recording: boolean;
  external_webhook_url: string;
  prompt: string;
  greeting_message: string;
  greeting_message_mode: 'human' | 'agent_static' | 'agent_dynamic';
  greeting_interruptible: boolean;
  language: string;
  voice_id: string;
  patience_level: 'low' | 'medium' | 'high';
  min_words_to_interrupt: '' | WordsToInterrupt;
}

const WORDS_TO_INTERRUPT = ['0', '1', '2', '3', '4', '5'] as const;
type WordsToInterrupt = (typeof WORDS_TO_INTERRUPT)[number];

const BLANK: Form = {
  name: '',
  type: 'outbound',
  phone_number: '',
  is_recording: true,
  external_webhook_url: '',
  prompt: '',
  greeting_message: '',
  greeting_message_mode: 'agent_static',
  greeting_interruptible: false,
  language: 'en-US',
  voice_id: '',
  patience_level: 'medium',
  min_words_to_interrupt: '',
};

const text = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const oneOf = <T extends string>(v: unknown, options: readonly T[], fallback: T): T =>
  options.find((o) => o === v) ?? fallback;

function formOf(agent: Agent): Form {
  const a = agent.agent;
  return {
    name: agent.name,
    type: oneOf(agent.type, ['outbound', 'inbound', 'widget', 'chat'] as const, 'outbound'),
    phone_number: agent.phone_number,
    is_recording: agent.is_recording,
    external_webhook_url: agent.external_webhook_url,
    prompt: text(a.prompt),
    greeting_message: text(a.greeting_message),
    greeting_message_mode: oneOf(
      a.greeting_message_mode,
      ['human', 'agent_static', 'agent_dynamic'] as const,
      'agent_static',
    ),
    greeting_interruptible: a.greeting_interruptible === true,
    language: text(a.language, 'en-US'),
    voice_id: text(a.voice_id),
    patience_level: oneOf(a.patience_level, ['low', 'medium', 'high'] as const, 'medium'),
    min_words_to_interrupt: WORDS_TO_INTERRUPT.find((n) => n === String(a.min_words_to_interrupt)) ?? '',
  };
}

function agentFields(f: Form) {
  return {
    prompt: f.prompt,
    greeting_message: f.greeting_message,
    greeting_message_mode: f.greeting_message_mode,
    greeting_interruptible: f.greeting_interruptible,
    language: f.language,
    patience_level: f.patience_level,
    ...(f.voice_id ? { voice_id: f.voice_id } : {}),
    ...(f.min_words_to_interrupt !== '' ? { min_words_to_interrupt: f.min_words_to_interrupt } : {}),
  };
}

export function AgentEditor(props: { modelId?: string; tab?: string | undefined }) {
  const { modelId } = props;
  const loaded = useLoad(
    async () =>
      modelId
        ? (
            await unwrap(
              // With its actions: the attachments tab shows which are attached.
              parley().api.GET('/v2/assistants/{model_id}', {
                params: { path: { model_id: modelId }, query: { include_actions: true } },
              }),
            )
          ).assistants[0]
        : null,
    [modelId],
  );
  if (!modelId) return <Settings agent={null} onSaved={(id) => go('agents', id)} />;
  const tab = props.tab ?? 'settings';
  return (
    <Loading state={loaded}>
      {(agent) =>
        agent ? (
          <>
            <nav class="tabs" aria-label="Agent">
              {(
                [
                  ['settings', 'Settings'],
                  ['attachments', 'Actions and knowledge'],
                  ['versions', 'Versions'],
                  ['test', 'Test call'],
                  ['chat', 'Chat'],
                ] as const
              ).map(([path, label]) => (
                <a href={href('agents', modelId, path)} aria-current={tab === path ? 'page' : undefined}>
                  {label}
                </a>
              ))}
            </nav>
            {tab === 'test' ? (
              <TestCall modelId={modelId} />
            ) : tab === 'chat' ? (
              <Chat modelId={modelId} />
            ) : tab === 'versions' ? (
              <AgentVersions agent={agent} />
            ) : tab === 'attachments' ? (
              <AgentAttachments agent={agent} onChange={loaded.reload} />
            ) : (
              <Settings agent={agent} onSaved={loaded.reload} />
            )}
          </>
        ) : (
          <p>This agent does not exist.</p>
        )
      }
    </Loading>
  );
}

function Settings(props: { agent: Agent | null; onSaved: (modelId: string) => void }) {
  const { agent } = props;
  const [form, setForm] = useState<Form>(agent ? formOf(agent) : BLANK);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => setForm(agent ? formOf(agent) : BLANK), [agent]);
  const voices = useLoad(
    () => unwrap(parley().api.GET('/v2/voices', { params: { query: { limit: 200 } } })),
    [],
  );
  const numbers = useLoad(
    () => unwrap(parley().api.GET('/v2/numbers', { params: { query: { limit: 200 } } })),
    [],
  );

  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setSaved(false);
    setForm((f) => ({ ...f, [key]: value }));
  };
  const err = (field: string) => fieldError(error, field);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const common = {
        name: form.name,
        is_recording: form.is_recording,
        ...(form.phone_number ? { phone_number: form.phone_number } : {}),
        ...(form.external_webhook_url ? { external_webhook_url: form.external_webhook_url } : {}),
        agent: agentFields(form),
      };
      if (agent) {
        await unwrap(
          parley().api.PUT('/v2/assistants/{model_id}', {
            params: { path: { model_id: agent.model_id } },
            body: common,
          }),
        );
        setSaved(true);
        props.onSaved(agent.model_id);
      } else {
        const created = await unwrap(
          parley().api.POST('/v2/assistants', { body: { ...common, type: form.type } }),
        );
        props.onSaved(created.model_id);
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const select = <K extends keyof Form>(
    key: K,
    options: readonly (readonly [Form[K] & string, string])[],
  ) => (
    <select id={key} value={String(form[key])} onChange={(e) => set(key, e.currentTarget.value as Form[K])}>
      {options.map(([value, label]) => (
        <option value={value}>{label}</option>
      ))}
    </select>
  );
  const input = (key: keyof Form, props: Record<string, unknown> = {}): ComponentChildren => (
    <input
      id={key}
      value={String(form[key])}
      aria-invalid={err(key) ? 'true' : undefined}
      onInput={(e) => set(key, e.currentTarget.value as never)}
      {...props}
    />
  );

  return (
    <Page title={agent ? agent.name : 'New agent'}>
      <form onSubmit={submit} noValidate>
        <Field label="Name" id="name" error={err('name')}>
          {input('name', { required: true })}
        </Field>
        {agent ? null : (
          <Field label="Type" id="type" error={err('type')}>
            {select('type', [
              ['outbound', 'Outbound calls'],
              ['inbound', 'Inbound calls'],
              ['widget', 'Web widget'],
              ['chat', 'Chat'],
            ])}
          </Field>
        )}
        <Field
          label="Prompt"
          id="prompt"
          error={err('prompt')}
          hint="What the agent is, knows and should do."
        >
          <textarea
            id="prompt"
            value={form.prompt}
            aria-invalid={err('prompt') ? 'true' : undefined}
            onInput={(e) => set('prompt', e.currentTarget.value)}
          />
        </Field>
        <Field label="Greeting" id="greeting_message" error={err('greeting_message')}>
          <textarea
            id="greeting_message"
            rows={2}
            value={form.greeting_message}
            onInput={(e) => set('greeting_message', e.currentTarget.value)}
          />
        </Field>
        <Field label="Who speaks first" id="greeting_message_mode" error={err('greeting_message_mode')}>
          {select('greeting_message_mode', [
            ['agent_static', 'The agent, with the greeting above'],
            ['agent_dynamic', 'The agent, with a greeting the model writes'],
            ['human', 'The person who answers ("Hello?"), then the agent'],
          ])}
        </Field>
        <CheckField
          checked={form.greeting_interruptible}
          onChecked={(on) => set('greeting_interruptible', on)}
        >
          The caller may interrupt the greeting
        </CheckField>
        <Field
          label="Voice"
          id="voice_id"
          error={err('voice_id')}
          hint="Any voice id your providers serve; the list shows the configured ones."
        >
          {input('voice_id', { list: 'voices' })}
          <datalist id="voices">
            {(voices.data?.voices ?? []).map((v) => (
              <option value={v.voice_id}>{`${v.name} (${v.provider})`}</option>
            ))}
          </datalist>
          <VoicePreview voiceId={form.voice_id} />
        </Field>
        <Field label="Language" id="language" error={err('language')}>
          {input('language')}
        </Field>
        <Field
          label="Patience"
          id="patience_level"
          error={err('patience_level')}
          hint="How long the agent waits after the caller stops before it answers."
        >
          {select('patience_level', [
            ['low', 'Low: answers quickly'],
            ['medium', 'Medium'],
            ['high', 'High: waits for slow speakers'],
          ])}
        </Field>
        <Field
          label="Words to interrupt"
          id="min_words_to_interrupt"
          error={err('min_words_to_interrupt')}
          hint="How many words the caller must say to stop the agent; empty: the default."
        >
          {select('min_words_to_interrupt', [
            ['', 'The default'],
            ...WORDS_TO_INTERRUPT.map((n) => [n, n] as const),
          ])}
        </Field>
        <Field label="Phone number" id="phone_number" error={err('phone_number')}>
          <select
            id="phone_number"
            value={form.phone_number}
            onChange={(e) => set('phone_number', e.currentTarget.value)}
          >
            <option value="">None</option>
            {(numbers.data?.numbers ?? []).map((n) => (
              <option value={n.phone_number}>{n.phone_number}</option>
            ))}
          </select>
        </Field>
        <CheckField checked={form.is_recording} onChecked={(on) => set('is_recording', on)}>
          Record calls
        </CheckField>
        <Field label="Post-call webhook URL" id="external_webhook_url" error={err('external_webhook_url')}>
          {input('external_webhook_url', { type: 'url', placeholder: 'https://…' })}
        </Field>
        {error !== undefined &&
        ![
          'name',
          'prompt',
          'voice_id',
          'language',
          'phone_number',
          'external_webhook_url',
          'min_words_to_interrupt',
        ].some((f) => err(f)) ? (
          <ErrorNote error={error} />
        ) : null}
        {saved ? (
          <p class="notice" role="status">
            Saved.
          </p>
        ) : null}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Saving…' : agent ? 'Save' : 'Create agent'}
          </button>
          {agent ? <DeleteAgent agent={agent} /> : null}
        </div>
      </form>
    </Page>
  );
}

function DeleteAgent(props: { agent: Agent }) {
  const [error, setError] = useState<unknown>(undefined);
  const remove = async () => {
    if (!confirm(`Delete the agent "${props.agent.name}"?`)) return;
    try {
      await unwrap(
        parley().api.DELETE('/v2/assistants/{model_id}', {
          params: { path: { model_id: props.agent.model_id } },
        }),
      );
      go('agents');
    } catch (e) {
      setError(describe(e));
    }
  };
  return (
    <>
      <button type="button" class="danger" onClick={remove}>
        Delete
      </button>
      {error ? <ErrorNote error={error} /> : null}
    </>
  );
}
