import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ParleyError, type components, type paths } from '../../../sdk/index.ts';
import {
  CheckField,
  fieldErrors,
  FormButtons,
  InputField,
  SelectField,
  TextAreaField,
  useForm,
  useSending,
  type Problems,
} from '../form.tsx';
import { go, href } from '../router.ts';
import { isMissing, parley, unwrap } from '../session.ts';
import { ListTable, optional, Table, usePagedList } from '../table.tsx';
import {
  ErrorNote,
  Loading,
  LoadingPage,
  NotFound,
  Page,
  Term,
  useChange,
  useJumpTarget,
  useLoad,
  when,
} from '../ui.tsx';

// Actions: the list, one action's page (its kind and configuration in words, the agents it is
// attached to, delete), and a form for a new one. The body of a new action has exactly one kind
// key: an HTTP request (CUSTOM_ACTION) and an information extractor have forms of their own; the
// other kinds take their configuration as JSON, checked by the API, whose words show beside it.

type Action = components['schemas']['Action'];
type Kind = Action['kind'];
type CreateBody = paths['/v2/actions']['post']['requestBody']['content']['application/json'];
type CustomAction = NonNullable<CreateBody['CUSTOM_ACTION']>;
type HttpMode = CustomAction['http_mode'];

const LIMIT = 50;

export const KIND_LABELS: Record<Kind, string> = {
  CUSTOM_ACTION: 'HTTP request',
  INFORMATION_EXTRACTOR: 'Information extractor',
  REAL_TIME_BOOKING: 'Appointment booking',
  LIVE_TRANSFER: 'Call transfer',
  SEND_SMS: 'Text message after the call',
  INCALL_SMS: 'Text message during the call',
  INCALL_WHATSAPP: 'WhatsApp message during the call',
  CUSTOM_EVAL: 'Evaluation question',
};
const KINDS = Object.keys(KIND_LABELS) as Kind[];
const JSON_KINDS = KINDS.filter((k) => k !== 'CUSTOM_ACTION' && k !== 'INFORMATION_EXTRACTOR');

function isKind(value: string): value is Kind {
  return Object.hasOwn(KIND_LABELS, value);
}

/** A starting configuration for each kind edited as JSON (its required fields, as the API notes say). */
const JSON_EXAMPLES: Record<Kind, object> = {
  CUSTOM_ACTION: { name: 'lookup_order', http_mode: 'GET', url: 'https://example.com/orders/{order_id}' },
  INFORMATION_EXTRACTOR: {
    identifier: 'wants_demo',
    description: 'Whether the caller wants a demo',
    kind: 'yes_no',
  },
  REAL_TIME_BOOKING: { name: 'appointment', timezone: 'America/New_York' },
  LIVE_TRANSFER: { name: 'transfer_call', phone: '+14155550100', transfer_mode: 'cold_transfer' },
  SEND_SMS: { name: 'send_sms_after_call', content: 'Thanks for calling, {name}!' },
  INCALL_SMS: { name: 'send_sms', message_body: 'Here is the link you asked for: https://example.com' },
  INCALL_WHATSAPP: {
    name: 'send_whatsapp',
    message_body: 'Here is the link you asked for: https://example.com',
  },
  CUSTOM_EVAL: {
    question: { identifier: 'resolved', text: 'Was the caller’s problem solved?', category: 'pass_fail' },
  },
};

export function Actions(props: { id?: string }) {
  return props.id ? <ActionPage id={props.id} /> : <ActionList />;
}

function ActionList() {
  const { list, offset, paging } = usePagedList(LIMIT, (page) =>
    unwrap(parley().api.GET('/v2/actions', { params: { query: page } })),
  );
  const newForm = useJumpTarget();
  return (
    <Page
      title="Actions"
      actions={
        <button type="button" class="secondary" onClick={newForm.jump}>
          New action
        </button>
      }
    >
      <Loading state={list}>
        {(data) => (
          <ListTable
            label="Actions"
            columns={['Name', 'Kind', ...optional('Description', 'Created')]}
            items={data.actions}
            empty={
              offset === 0 ? <p>No actions yet: create the first one with the form below.</p> : undefined
            }
            paging={paging(data.pagination.total_records)}
            row={(a) => (
              <tr key={a.action_id}>
                <td>
                  <a href={href('actions', a.action_id)}>{a.name || 'Unnamed action'}</a>
                </td>
                <td>{KIND_LABELS[a.kind] ?? a.kind}</td>
                <td class="optional">{a.description || '—'}</td>
                <td class="optional">{when(a.created_at)}</td>
              </tr>
            )}
          />
        )}
      </Loading>
      <h2 ref={newForm.heading} tabIndex={-1}>
        New action
      </h2>
      <NewAction />
    </Page>
  );
}

// ---- Creating ----

type FormKind = 'CUSTOM_ACTION' | 'INFORMATION_EXTRACTOR' | 'JSON';

function NewAction() {
  const [formKind, setFormKind] = useState<FormKind>('CUSTOM_ACTION');
  return (
    <>
      <SelectField
        label="Kind"
        id="action-kind"
        hint="Other kinds are written as JSON and checked by the server."
        value={formKind}
        onValue={(v) => setFormKind(v as FormKind)}
      >
        <option value="CUSTOM_ACTION">HTTP request (CUSTOM_ACTION)</option>
        <option value="INFORMATION_EXTRACTOR">Information extractor (INFORMATION_EXTRACTOR)</option>
        <option value="JSON">Another kind, as JSON</option>
      </SelectField>
      {formKind === 'CUSTOM_ACTION' ? (
        <CustomActionForm />
      ) : formKind === 'INFORMATION_EXTRACTOR' ? (
        <ExtractorForm />
      ) : (
        <JsonForm />
      )}
    </>
  );
}

async function create(body: CreateBody): Promise<void> {
  const made = await unwrap(parley().api.POST('/v2/actions', { body }));
  go('actions', made.action_id);
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text.replace(/[{<][^}>]*[}>]/g, 'x'));
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `Key: value` lines (or `key=value` with `separator` '='); a line without a key is a problem. */
function parsePairs(
  text: string,
  separator: ':' | '=',
): { pairs: { key: string; value: string }[]; problem?: string } {
  const pairs: { key: string; value: string }[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(separator);
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    if (at < 0 || !key)
      return { pairs, problem: `Line ${i + 1}: write it as name${separator === ':' ? ': ' : '='}value.` };
    pairs.push({ key, value: line.slice(at + 1).trim() });
  }
  return { pairs };
}

type CallVariable = NonNullable<CustomAction['variables_during_the_call']>[number];

/** `name (type): description` lines; the type (integer, number, boolean...) is optional. */
function parseVariables(text: string): { vars: CallVariable[]; problem?: string } {
  const vars: CallVariable[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^([^:()]+?)\s*(?:\(([^)]*)\))?\s*(?::\s*(.*))?$/.exec(line);
    const name = m?.[1]?.trim();
    if (!m || !name) return { vars, problem: `Line ${i + 1}: write it as name (type): what the value is.` };
    const type = m[2]?.trim();
    const description = m[3]?.trim();
    vars.push({ name, ...(type ? { type } : {}), ...(description ? { description } : {}) });
  }
  return { vars };
}

type CustomField =
  | 'name'
  | 'description'
  | 'http_mode'
  | 'url'
  | 'headers'
  | 'query_parameters'
  | 'json_body_stringified'
  | 'variables_during_the_call'
  | 'failure_timeout'
  | 'custom_auth';

const CUSTOM_FIELDS: CustomField[] = [
  'name',
  'description',
  'http_mode',
  'url',
  'headers',
  'query_parameters',
  'json_body_stringified',
  'variables_during_the_call',
  'failure_timeout',
  'custom_auth',
];

function CustomActionForm() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [method, setMethod] = useState<HttpMode>('GET');
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState('');
  const [query, setQuery] = useState('');
  const [jsonBody, setJsonBody] = useState('');
  const [variables, setVariables] = useState('');
  const [timeout, setTimeoutText] = useState('');
  const [authLocation, setAuthLocation] = useState<'' | 'header' | 'query'>('');
  const [authKey, setAuthKey] = useState('');
  const [authValue, setAuthValue] = useState('');
  const [before, setBefore] = useState(false);
  const [speech, setSpeech] = useState('');
  const form = useForm(CUSTOM_FIELDS, (f) => `ca-${f}`);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Problems<CustomField> = {};
    if (name.trim() === '') problems.name = 'Enter a name.';
    else if ([...name.trim()].length > 200) problems.name = 'At most 200 characters.';
    if (!isHttpUrl(url.trim())) problems.url = 'Enter the endpoint’s address (http:// or https://).';
    const h = parsePairs(headers, ':');
    if (h.problem) problems.headers = h.problem;
    const q = parsePairs(query, '=');
    if (q.problem) problems.query_parameters = q.problem;
    const v = parseVariables(variables);
    if (v.problem) problems.variables_during_the_call = v.problem;
    let seconds: number | undefined;
    if (timeout.trim()) {
      seconds = Number(timeout);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 600)
        problems.failure_timeout = 'A whole number of seconds from 1 to 600.';
    }
    if (!form.check(problems)) return;
    const config: CustomAction = {
      name: name.trim(),
      http_mode: method,
      url: url.trim(),
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(h.pairs.length ? { headers: h.pairs } : {}),
      ...(q.pairs.length ? { query_parameters: q.pairs } : {}),
      ...(method !== 'GET' && jsonBody.trim() ? { json_body_stringified: jsonBody } : {}),
      ...(v.vars.length ? { variables_during_the_call: v.vars } : {}),
      ...(seconds !== undefined ? { failure_timeout: seconds } : {}),
      ...(authLocation
        ? { custom_auth: { is_needed: true, location: authLocation, key: authKey.trim(), value: authValue } }
        : {}),
      ...(before ? { run_action_before_call_start: true } : {}),
      ...(speech.trim() ? { speech_while_using_the_tool: speech.trim() } : {}),
    };
    await form.send(() => create({ CUSTOM_ACTION: config }));
  };

  const { errors, unclaimed } = fieldErrors(CUSTOM_FIELDS, form.invalid, form.error, (f) =>
    kindFieldError(form.error, 'CUSTOM_ACTION', f),
  );

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-busy={form.busy ? 'true' : undefined}
      aria-label="New HTTP request action"
    >
      <InputField
        label="Name"
        id="ca-name"
        error={errors.name}
        hint="The tool’s name for the agent, e.g. lookup_order."
        type="text"
        autocomplete="off"
        maxLength={200}
        value={name}
        onValue={setName}
      />
      <TextAreaField
        label="Description"
        id="ca-description"
        error={errors.description}
        hint="When the agent should use it (its trigger)."
        rows={3}
        value={description}
        onValue={setDescription}
      />
      <div class="filters request-line">
        <SelectField
          label="Method"
          id="ca-http_mode"
          error={errors.http_mode}
          value={method}
          onValue={(m) => setMethod(m as HttpMode)}
        >
          {(['GET', 'POST', 'PUT', 'PATCH'] as const).map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </SelectField>
        <InputField
          label="URL"
          id="ca-url"
          error={errors.url}
          hint="The endpoint, starting with https:// or http://. It may hold {variable} placeholders, such as {order_id}."
          type="url"
          inputMode="url"
          autocomplete="off"
          value={url}
          onValue={setUrl}
        />
      </div>
      <TextAreaField
        label="Headers"
        id="ca-headers"
        error={errors.headers}
        hint="Optional, one per line: Name: value."
        rows={3}
        placeholder="X-Api-Version: 2"
        value={headers}
        onValue={setHeaders}
      />
      <TextAreaField
        label="Query parameters"
        id="ca-query_parameters"
        error={errors.query_parameters}
        hint="Optional, one per line: name=value."
        rows={3}
        placeholder="phone={phone}"
        value={query}
        onValue={setQuery}
      />
      {method !== 'GET' ? (
        <TextAreaField
          label="JSON body"
          id="ca-json_body_stringified"
          error={errors.json_body_stringified}
          hint='Optional. A JSON document; placeholders may stand for values: {"n": <count>}.'
          rows={5}
          spellcheck={false}
          value={jsonBody}
          onValue={setJsonBody}
        />
      ) : null}
      <TextAreaField
        label="Values the agent collects during the call"
        id="ca-variables_during_the_call"
        error={errors.variables_during_the_call}
        hint="Optional, one per line: name (type): what it is. Type: string (default), int, float, bool."
        rows={3}
        placeholder="order_id: The order number the caller gives"
        value={variables}
        onValue={setVariables}
      />
      <details>
        <summary>More settings</summary>
        <InputField
          label="Timeout (seconds)"
          id="ca-failure_timeout"
          error={errors.failure_timeout}
          hint="Optional, 1 to 600."
          type="number"
          inputMode="numeric"
          min={1}
          max={600}
          value={timeout}
          onValue={setTimeoutText}
        />
        <SelectField
          label="Authentication"
          id="ca-custom_auth"
          error={errors.custom_auth}
          value={authLocation}
          onValue={(v) => setAuthLocation(v as '' | 'header' | 'query')}
        >
          <option value="">None</option>
          <option value="header">In the Authorization header</option>
          <option value="query">As a query parameter</option>
        </SelectField>
        {authLocation ? (
          <>
            <InputField
              label={authLocation === 'header' ? 'Scheme' : 'Parameter name'}
              id="ca-auth-key"
              hint={authLocation === 'header' ? 'Default Bearer.' : 'e.g. api_key.'}
              type="text"
              autocomplete="off"
              value={authKey}
              onValue={setAuthKey}
            />
            <InputField
              label="Secret"
              id="ca-auth-value"
              type="password"
              autocomplete="off"
              value={authValue}
              onValue={setAuthValue}
            />
          </>
        ) : null}
        <InputField
          label="Said while it runs"
          id="ca-speech"
          hint="Optional, e.g. “One moment while I look that up.”"
          type="text"
          value={speech}
          onValue={setSpeech}
        />
        <CheckField checked={before} onChecked={setBefore}>
          Run once before the conversation starts
        </CheckField>
      </details>
      <ErrorNote error={unclaimed} />
      <FormButtons busy={form.busy} submit="Create action" />
    </form>
  );
}

type QuestionKind = 'yes_no' | 'single_choice' | 'open_question';
const QUESTION_KEYS: Record<QuestionKind, 'YES_NO' | 'SINGLE_CHOICE' | 'OPEN_QUESTION'> = {
  yes_no: 'YES_NO',
  single_choice: 'SINGLE_CHOICE',
  open_question: 'OPEN_QUESTION',
};
type ExtractorField = 'identifier' | 'description' | 'choices' | 'examples';
const EXTRACTOR_FIELDS: ExtractorField[] = ['identifier', 'description', 'choices', 'examples'];

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

function ExtractorForm() {
  const [identifier, setIdentifier] = useState('');
  const [description, setDescription] = useState('');
  const [kind, setKind] = useState<QuestionKind>('yes_no');
  const [choices, setChoices] = useState('');
  const [examples, setExamples] = useState('');
  const form = useForm(EXTRACTOR_FIELDS, (f) => `ie-${f}`);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Problems<ExtractorField> = {};
    const id = identifier.trim();
    if (!id) problems.identifier = 'Enter the name the value is stored under.';
    else if ([...id].length > 200) problems.identifier = 'At most 200 characters.';
    if ([...description].length > 4000) problems.description = 'At most 4,000 characters.';
    const choiceList = lines(choices);
    if (kind === 'single_choice' && choiceList.length === 0)
      problems.choices = 'List the choices, one per line: there must be something to choose from.';
    if (choiceList.length > 100) problems.choices = 'At most 100 choices.';
    const exampleList = lines(examples);
    if (exampleList.length > 100) problems.examples = 'At most 100 examples.';
    if (!form.check(problems)) return;
    // The published question form: the API derives a missing description from the identifier.
    const question = {
      identifier: id,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(kind === 'single_choice' ? { choices: choiceList } : {}),
      ...(kind === 'open_question' && exampleList.length ? { examples: exampleList } : {}),
    };
    await form.send(() => create({ INFORMATION_EXTRACTOR: { [QUESTION_KEYS[kind]]: question } }));
  };

  const { errors, unclaimed } = fieldErrors(EXTRACTOR_FIELDS, form.invalid, form.error, (f) =>
    kindFieldError(form.error, 'INFORMATION_EXTRACTOR', f),
  );

  return (
    <form
      onSubmit={submit}
      noValidate
      aria-busy={form.busy ? 'true' : undefined}
      aria-label="New information extractor"
    >
      <InputField
        label="Identifier"
        id="ie-identifier"
        error={errors.identifier}
        hint="The variable the value is stored under, e.g. wants_demo."
        type="text"
        autocomplete="off"
        maxLength={200}
        value={identifier}
        onValue={setIdentifier}
      />
      <SelectField label="Question" id="ie-kind" value={kind} onValue={(v) => setKind(v as QuestionKind)}>
        <option value="yes_no">Yes or no</option>
        <option value="single_choice">One of a list of choices</option>
        <option value="open_question">Open question</option>
      </SelectField>
      <TextAreaField
        label="What to extract"
        id="ie-description"
        error={errors.description}
        hint="Optional: also when the agent extracts it. Without it, the identifier in words."
        rows={3}
        value={description}
        onValue={setDescription}
      />
      {kind === 'single_choice' ? (
        <TextAreaField
          label="Choices"
          id="ie-choices"
          error={errors.choices}
          hint="One per line."
          rows={4}
          value={choices}
          onValue={setChoices}
        />
      ) : null}
      {kind === 'open_question' ? (
        <TextAreaField
          label="Examples"
          id="ie-examples"
          error={errors.examples}
          hint="Optional, one per line."
          rows={3}
          value={examples}
          onValue={setExamples}
        />
      ) : null}
      <ErrorNote error={unclaimed} />
      <FormButtons busy={form.busy} submit="Create action" />
    </form>
  );
}

/**
 * The API's complaint about one field of a kind's configuration: `body.<KIND>.<field>...`, or
 * `body.<KIND>.<QUESTION>.<field>...` for an extractor's question form. Only that level counts, so
 * a `name` inside `variables_during_the_call` is not taken for the action's name.
 */
function kindFieldError(err: unknown, kind: Kind, field: string): string | undefined {
  if (!(err instanceof ParleyError) || err.status !== 400) return undefined;
  const at = (loc: readonly (string | number)[]) =>
    loc[0] === 'body' &&
    loc[1] === kind &&
    (loc[2] === field || (typeof loc[2] === 'string' && /^[A-Z_]+$/.test(loc[2]) && loc[3] === field));
  const hit = err.errors.find((e) => at(e.loc));
  if (hit) return hit.msg;
  if (err.errors.length > 0) return undefined;
  return new RegExp(`\\bbody\\.${kind}\\.([A-Z_]+\\.)?${field}\\b`).test(err.description)
    ? err.description
    : undefined;
}

/** The API's complaints about the configuration (`body.<KIND>...` or `body`), in its words. */
function configErrors(err: unknown, kind: Kind): string | undefined {
  if (!(err instanceof ParleyError) || err.status !== 400) return undefined;
  const mine = err.errors.filter((e) => e.loc[0] === 'body' && (e.loc.length === 1 || e.loc[1] === kind));
  if (mine.length > 0) return mine.map((e) => e.msg).join('; ');
  return /^body\b/.test(err.description) ? err.description : undefined;
}

function JsonForm() {
  const [kind, setKind] = useState<Kind>('SEND_SMS');
  const [text, setText] = useState(() => JSON.stringify(JSON_EXAMPLES.SEND_SMS, null, 2));
  const [touched, setTouched] = useState(false);
  const [invalid, setInvalid] = useState<string | undefined>(undefined);
  const { busy, error, setError, send } = useSending();

  const chooseKind = (k: Kind) => {
    setKind(k);
    setInvalid(undefined);
    setError(undefined);
    if (!touched) setText(JSON.stringify(JSON_EXAMPLES[k], null, 2));
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch (err) {
      setInvalid(`This is not JSON: ${err instanceof Error ? err.message : String(err)}`);
      document.getElementById('aj-config')?.focus();
      return;
    }
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      setInvalid('The configuration is a JSON object: { ... }.');
      document.getElementById('aj-config')?.focus();
      return;
    }
    setInvalid(undefined);
    setError(undefined);
    await send(() => create({ [kind]: config } as CreateBody));
  };
  const configError = invalid ?? configErrors(error, kind);
  return (
    <form onSubmit={submit} noValidate aria-busy={busy ? 'true' : undefined} aria-label="New action as JSON">
      <SelectField
        label="Kind of action"
        id="aj-kind"
        value={kind}
        onValue={(v) => {
          if (isKind(v)) chooseKind(v);
        }}
      >
        {JSON_KINDS.map((k) => (
          <option key={k} value={k}>
            {KIND_LABELS[k]} ({k})
          </option>
        ))}
      </SelectField>
      <TextAreaField
        label="Configuration (JSON)"
        id="aj-config"
        error={configError}
        hint={`The value of the ${kind} key. The example holds the fields the kind needs; the server checks the rest.`}
        rows={10}
        spellcheck={false}
        value={text}
        onValue={(v) => {
          setText(v);
          setTouched(true);
        }}
      />
      <ErrorNote error={configError ? undefined : error} />
      <FormButtons busy={busy} submit="Create action" />
    </form>
  );
}

// ---- One action ----

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `failure_timeout` → "Failure timeout". */
function words(key: string): string {
  const spaced = key.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
  return /^[A-Z0-9 ]+$/.test(spaced) ? spaced : spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function isPairs(value: unknown): value is { key: string; value: unknown }[] {
  return (
    Array.isArray(value) && value.length > 0 && value.every((v) => isObj(v) && typeof v.key === 'string')
  );
}

/** A configuration value in words: lists as lists, objects as nested lists, text as text. */
function Value(props: { value: unknown; name: string }): ComponentChildren {
  const { value } = props;
  if (value === null || value === undefined || value === '') return <span class="hint">none</span>;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return value.toLocaleString();
  if (typeof value === 'string') {
    if (/body_stringified$/.test(props.name)) {
      let pretty = value;
      try {
        pretty = JSON.stringify(JSON.parse(value), null, 2);
      } catch {
        // A body with placeholders standing for values is not JSON until they are filled in.
      }
      return <pre>{pretty}</pre>;
    }
    return value.includes('\n') ? <pre>{value}</pre> : <span class="break">{value}</span>;
  }
  if (isPairs(value)) {
    return (
      <Table label={words(props.name)} columns={['Name', 'Value']}>
        {value.map((p, i) => (
          <tr key={i}>
            <td>
              <code>{p.key}</code>
            </td>
            <td>
              <Value value={p.value} name={p.key} />
            </td>
          </tr>
        ))}
      </Table>
    );
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="hint">none</span>;
    return (
      <ul>
        {value.map((item, i) => (
          <li key={i}>
            <Value value={item} name={props.name} />
          </li>
        ))}
      </ul>
    );
  }
  if (isObj(value)) return <Config config={value} />;
  return String(value);
}

function Config(props: { config: Obj }) {
  const entries = Object.entries(props.config);
  if (entries.length === 0) return <p class="hint">No settings.</p>;
  return (
    <dl class="details">
      {entries.map(([key, value]) => (
        <Term key={key} label={words(key)}>
          <Value value={value} name={key} />
        </Term>
      ))}
    </dl>
  );
}

/** The one-line gist of an action: what it does, from its configuration. */
function gist(a: Action): string | null {
  const c = a.config;
  const s = (k: string) => (typeof c[k] === 'string' ? (c[k] as string) : '');
  switch (a.kind) {
    case 'CUSTOM_ACTION':
      return `${s('http_mode') || 'GET'} ${s('url')}`;
    case 'INFORMATION_EXTRACTOR': {
      const k = s('kind');
      const kindText =
        k === 'yes_no'
          ? 'a yes or no'
          : k === 'single_choice'
            ? 'one of a list of choices'
            : 'an open answer';
      return `Stores ${kindText} as ${s('identifier') || a.name}.`;
    }
    case 'LIVE_TRANSFER':
      return s('phone') ? `Transfers the call to ${s('phone')}.` : null;
    case 'SEND_SMS':
      return s('content') ? `After the call, texts: “${s('content')}”` : null;
    case 'INCALL_SMS':
    case 'INCALL_WHATSAPP':
      return s('message_body') ? `Sends: “${s('message_body')}”` : null;
    case 'REAL_TIME_BOOKING':
      return s('timezone') ? `Books appointments (time zone ${s('timezone')}).` : null;
    case 'CUSTOM_EVAL':
      return isObj(c.question) && typeof c.question.text === 'string'
        ? `Asks after the call: “${c.question.text}”`
        : null;
    default:
      return null;
  }
}

function ActionPage(props: { id: string }) {
  const id = props.id;
  const action = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/actions/{action_id}', {
          params: { path: { action_id: id }, query: { include_assistants: true } },
        }),
      ),
    [id],
  );
  const removal = useChange();

  if (action.error !== undefined && isMissing(action.error)) {
    return <NotFound thing="action" back={href('actions')} backText="Back to the actions" />;
  }
  if (action.data === undefined) return <LoadingPage title="Action" error={action.error} />;
  const a = action.data;
  const attached = a.assistants?.length ?? 0;
  const note =
    attached > 0 ? ` It is detached from ${attached === 1 ? 'its agent' : `${attached} agents`}.` : '';
  const remove = () =>
    removal.run(async () => {
      await unwrap(parley().api.DELETE('/v2/actions/{action_id}', { params: { path: { action_id: id } } }));
      go('actions');
    }, `Delete the action "${a.name}"?${note}`);
  const line = gist(a);
  const values = a.input_variables.values;
  const agents = a.input_variables.assistants ?? [];
  return (
    <Page
      title={a.name || 'Unnamed action'}
      actions={
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete action
        </button>
      }
    >
      <p>
        <a href={href('actions')}>All actions</a>
      </p>
      <ErrorNote error={removal.error} />
      <dl class="details">
        <Term label="Kind">
          {KIND_LABELS[a.kind] ?? a.kind} (<code>{a.kind}</code>)
        </Term>
        {line ? (
          <Term label="What it does" breakable>
            {line}
          </Term>
        ) : null}
        {a.description ? <Term label="Description">{a.description}</Term> : null}
        <Term label="Created">{when(a.created_at)}</Term>
        <Term label="Changed">{when(a.updated_at)}</Term>
      </dl>
      <h2>Configuration</h2>
      <Config config={a.config} />
      {values.length > 0 ? (
        <>
          <h2>Values it collects</h2>
          <Table label="Values it collects" columns={['Name', 'Type', 'Description', ...optional('Example')]}>
            {values.map((v) => (
              <tr key={v.name}>
                <td>
                  <code>{v.name}</code>
                </td>
                <td>{v.type}</td>
                <td>{v.description || '—'}</td>
                <td class="optional">{v.example || '—'}</td>
              </tr>
            ))}
          </Table>
        </>
      ) : null}
      <h2>Agents using it</h2>
      {agents.length === 0 ? (
        <p>No agent uses this action yet. Attach it from an agent’s page.</p>
      ) : (
        <ul>
          {agents.map((g) => (
            <li key={g.model_id}>
              <a href={href('agents', g.model_id)}>{g.model_id}</a>
              {g.attachment_type !== 'during'
                ? ` (runs ${g.attachment_type === 'before' ? 'before' : 'after'} the conversation)`
                : ''}
              {g.trigger_condition ? `: ${g.trigger_condition}` : ''}
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
