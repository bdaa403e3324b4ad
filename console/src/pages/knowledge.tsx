import { useRef, useState } from 'preact/hooks';
import type { components } from '../../../sdk/index.ts';
import {
  aria,
  fieldErrors,
  FormButtons,
  InputField,
  TextAreaField,
  useForm,
  type Problems,
} from '../form.tsx';
import { go, href } from '../router.ts';
import { fieldError, isMissing, parley, unwrap } from '../session.ts';
import { BUTTONS_COLUMN, ListTable, optional, usePagedList } from '../table.tsx';
import {
  DeleteButton,
  ErrorNote,
  Field,
  Loading,
  LoadingPage,
  NotFound,
  Notice,
  Page,
  useChange,
  useLoad,
  when,
} from '../ui.tsx';

// Knowledge bases: the list with a form for a new one, and one base's page: its name and when the
// agent consults it, and its sources (text, a web page or a PDF), twenty a page, each renamed,
// replaced or deleted. The API extracts and indexes a source while the request runs, so a page
// that cannot be fetched is refused at once, in the API's words, beside the field.

type Base = components['schemas']['KnowledgeBase'];
type Source = components['schemas']['KnowledgeSource'];
type SourceType = 'text' | 'web' | 'pdf';

const BASE_LIMIT = 25;
const SOURCE_LIMIT = 20;
const NAME_MAX = 200;
const CONDITION_MAX = 4000;
const SOURCE_NAME_MAX = 500;
/** The API refuses a PDF over 5 MB; the request body limit (1 MB by default) may refuse less. */
const PDF_MAX_BYTES = 5 * 1024 * 1024;

const TYPE_LABELS: Record<SourceType, string> = { text: 'Text', web: 'Web page', pdf: 'PDF' };

const CONDITION_HINT =
  'Optional. Empty or "always": every turn; "never": not at all; any other text: when the caller asks ' +
  'a question or says a word of it.';

/** Asked before a base is deleted, from the list or from its page. */
const deleteBaseQuestion = (base: Base) =>
  `Delete the knowledge base "${base.name}" with all its sources? Agents using it lose it.`;

function deleteBase(base: Base) {
  return unwrap(
    parley().api.DELETE('/v2/knowledge_base/{knowledge_base_id}', {
      params: { path: { knowledge_base_id: base.knowledge_base_id } },
    }),
  );
}

export function Knowledge(props: { id?: string }) {
  return props.id ? <KnowledgeBase id={props.id} /> : <KnowledgeBases />;
}

function KnowledgeBases() {
  const { list, offset, paging } = usePagedList(BASE_LIMIT, (page) =>
    unwrap(parley().api.GET('/v2/knowledge_base', { params: { query: page } })),
  );
  const removal = useChange();
  const remove = (base: Base) =>
    removal.run(async () => {
      await deleteBase(base);
      list.reload();
    }, deleteBaseQuestion(base));
  return (
    <Page title="Knowledge bases">
      <ErrorNote error={removal.error} />
      <Loading state={list}>
        {(data) => (
          <ListTable
            label="Knowledge bases"
            columns={['Name', ...optional('Consulted', 'Created'), BUTTONS_COLUMN]}
            items={data.knowledge_bases}
            empty={
              offset === 0 ? (
                <p>No knowledge bases yet: create the first one with the form below.</p>
              ) : undefined
            }
            paging={paging(data.pagination.total_records)}
            row={(b) => (
              <tr key={b.knowledge_base_id}>
                <td>
                  <a href={href('knowledge', b.knowledge_base_id)}>{b.name.trim() || 'Untitled'}</a>
                </td>
                <td class="optional">{conditionText(b.rag_use_condition)}</td>
                <td class="optional">{when(b.created_at)}</td>
                <td>
                  <DeleteButton name={b.name} onClick={() => void remove(b)} />
                </td>
              </tr>
            )}
          />
        )}
      </Loading>
      <h2 id="kb-new">New knowledge base</h2>
      <BaseForm />
    </Page>
  );
}

function conditionText(condition: string): string {
  const c = condition.trim();
  if (c === '' || /^(always|every turn)$/i.test(c)) return 'Every turn';
  if (/^(never|off|disabled)$/i.test(c)) return 'Never';
  return c;
}

type BaseField = 'name' | 'rag_use_condition';
const BASE_FIELDS: BaseField[] = ['name', 'rag_use_condition'];

/** Local checks, as the API makes them: a name of 1 to 200 characters, a condition up to 4,000. */
function checkBase(name: string, condition: string): Problems<BaseField> {
  const problems: Problems<BaseField> = {};
  if (name.trim() === '') problems.name = 'Enter a name.';
  else if ([...name].length > NAME_MAX) problems.name = `At most ${NAME_MAX} characters.`;
  if ([...condition].length > CONDITION_MAX)
    problems.rag_use_condition = `At most ${CONDITION_MAX} characters.`;
  return problems;
}

/** Creates a base (no `base`) and opens it, or changes `base`'s name and condition. */
function BaseForm(props: { base?: Base; onSaved?: (base: Base) => void }) {
  const editing = props.base !== undefined;
  const prefix = editing ? 'kb-edit' : 'kb';
  const [name, setName] = useState(props.base?.name ?? '');
  const [condition, setCondition] = useState(props.base?.rag_use_condition ?? '');
  const [saved, setSaved] = useState(false);
  const form = useForm(BASE_FIELDS, (f) => (f === 'name' ? `${prefix}-name` : `${prefix}-condition`));

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (!form.check(checkBase(name, condition))) return;
    await form.send(async () => {
      const body = { name: name.trim(), rag_use_condition: condition.trim() };
      if (props.base) {
        const updated = await unwrap(
          parley().api.PUT('/v2/knowledge_base/{knowledge_base_id}', {
            params: { path: { knowledge_base_id: props.base.knowledge_base_id } },
            body,
          }),
        );
        setSaved(true);
        props.onSaved?.(updated);
      } else {
        const created = await unwrap(parley().api.POST('/v2/knowledge_base', { body }));
        go('knowledge', created.knowledge_base_id);
      }
    });
  };

  const { errors, unclaimed } = fieldErrors(BASE_FIELDS, form.invalid, form.error);
  return (
    <form onSubmit={submit} noValidate aria-busy={form.busy ? 'true' : undefined}>
      <InputField
        label="Name"
        id={`${prefix}-name`}
        error={errors.name}
        type="text"
        autocomplete="off"
        maxLength={NAME_MAX}
        value={name}
        onValue={setName}
      />
      <TextAreaField
        label="When the agent consults it"
        id={`${prefix}-condition`}
        error={errors.rag_use_condition}
        hint={CONDITION_HINT}
        rows={3}
        placeholder="When the caller asks about opening hours or prices"
        value={condition}
        onValue={setCondition}
      />
      <ErrorNote error={unclaimed} />
      {saved ? <Notice>Saved.</Notice> : null}
      <FormButtons busy={form.busy} submit={editing ? 'Save changes' : 'Create knowledge base'} />
    </form>
  );
}

function KnowledgeBase(props: { id: string }) {
  const id = props.id;
  const base = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/knowledge_base/{knowledge_base_id}', {
          params: { path: { knowledge_base_id: id } },
        }),
      ),
    [id],
  );
  const removal = useChange();

  if (base.error !== undefined && isMissing(base.error)) {
    return (
      <NotFound thing="knowledge base" back={href('knowledge')} backText="Back to the knowledge bases" />
    );
  }
  if (base.data === undefined) return <LoadingPage title="Knowledge base" error={base.error} />;
  const b = base.data;
  const remove = () =>
    removal.run(async () => {
      await deleteBase(b);
      go('knowledge');
    }, deleteBaseQuestion(b));
  return (
    <Page
      title={b.name.trim() || 'Untitled knowledge base'}
      actions={
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete knowledge base
        </button>
      }
    >
      <p>
        <a href={href('knowledge')}>All knowledge bases</a>
      </p>
      <ErrorNote error={removal.error} />
      <p>
        Consulted: <strong>{conditionText(b.rag_use_condition)}</strong>. Created {when(b.created_at)},
        changed {when(b.updated_at)}.
      </p>
      <details>
        <summary>Rename or change when it is consulted</summary>
        <BaseForm base={b} onSaved={() => base.reload()} />
      </details>
      <Sources baseId={id} />
    </Page>
  );
}

function Sources(props: { baseId: string }) {
  const { baseId } = props;
  const [draftFilter, setDraftFilter] = useState('');
  const [filter, setFilter] = useState('');
  const [editing, setEditing] = useState<Source | null>(null);
  const [notice, setNotice] = useState('');
  const { list, offset, setOffset, paging } = usePagedList(
    SOURCE_LIMIT,
    (page) =>
      unwrap(
        parley().api.GET('/v2/knowledge_base/{knowledge_base_id}/sources', {
          params: {
            path: { knowledge_base_id: baseId },
            query: { ...page, ...(filter ? { name: filter } : {}) },
          },
        }),
      ),
    [baseId, filter],
  );
  const editHeading = useRef<HTMLHeadingElement>(null);
  const removal = useChange();

  const remove = (s: Source) =>
    removal.run(async () => {
      setNotice('');
      await unwrap(
        parley().api.DELETE('/v2/knowledge_base/{knowledge_base_id}/sources/{source_id}', {
          params: { path: { knowledge_base_id: baseId, source_id: s.source_id } },
        }),
      );
      if (editing?.source_id === s.source_id) setEditing(null);
      setNotice(`Deleted the source "${s.name}".`);
      list.reload();
    }, `Delete the source "${s.name}"? The agent stops finding its text.`);
  const edit = (s: Source) => {
    setEditing(s);
    setNotice('');
    requestAnimationFrame(() => editHeading.current?.focus());
  };

  return (
    <>
      <h2>Sources</h2>
      <form
        class="filters"
        role="search"
        aria-label="Find sources"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draftFilter.trim());
          setOffset(0);
        }}
      >
        <InputField
          label="Name contains"
          id="kb-source-filter"
          type="search"
          maxLength={SOURCE_NAME_MAX}
          value={draftFilter}
          onValue={setDraftFilter}
        />
        <div class="field">
          <div class="actions">
            <button type="submit" class="secondary">
              Find
            </button>
          </div>
        </div>
      </form>
      <ErrorNote error={removal.error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <Loading state={list}>
        {(data) => (
          <ListTable
            label="Sources"
            columns={[
              'Name',
              'Type',
              ...optional('Beginning of the text', 'Characters', 'Added'),
              BUTTONS_COLUMN,
            ]}
            items={data.sources}
            empty={
              offset === 0 ? (
                <p>
                  {filter ? 'No source has a name containing this text.' : 'No sources yet: add one below.'}
                </p>
              ) : undefined
            }
            paging={paging(data.pagination.total_records)}
            row={(s) => (
              <tr key={s.source_id}>
                <td>
                  {s.name || 'Untitled'}
                  {s.url ? (
                    <>
                      <br />
                      <small>
                        <a href={s.url} rel="noreferrer noopener" target="_blank">
                          {s.url}
                        </a>
                      </small>
                    </>
                  ) : null}
                  {s.error ? <small class="field-error"> {s.error}</small> : null}
                </td>
                <td>{TYPE_LABELS[s.type as SourceType] ?? s.type}</td>
                <td class="optional">{s.content_preview || '—'}</td>
                <td class="optional">{s.characters.toLocaleString()}</td>
                <td class="optional">{when(s.created_at)}</td>
                <td>
                  <div class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit ${s.name}`}
                      onClick={() => edit(s)}
                    >
                      Edit
                    </button>
                    <DeleteButton name={s.name} onClick={() => void remove(s)} />
                  </div>
                </td>
              </tr>
            )}
          />
        )}
      </Loading>
      {editing ? (
        <>
          <h2 ref={editHeading} tabIndex={-1}>
            Edit the source “{editing.name}”
          </h2>
          <EditSource
            key={editing.source_id}
            baseId={baseId}
            source={editing}
            onDone={(saved) => {
              setEditing(null);
              if (saved) {
                setNotice(`Saved the source "${saved.name}".`);
                list.reload();
              }
            }}
          />
        </>
      ) : null}
      <h2>Add a source</h2>
      <AddSource
        baseId={baseId}
        onAdded={(s) => {
          setNotice(`Added the source "${s.name}" (${s.characters.toLocaleString()} characters).`);
          list.reload();
        }}
      />
    </>
  );
}

/** The file's bytes as base64, for `content_base64`. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

type SourceField = 'name' | 'content' | 'url' | 'file';
const SOURCE_FIELDS: SourceField[] = ['name', 'content', 'url', 'file'];

/** The API's words for a source field: it calls the name `title` too, and the file `content_base64`. */
function sourceFieldError(err: unknown, field: SourceField): string | undefined {
  if (field === 'name') return fieldError(err, 'name') ?? fieldError(err, 'title');
  return fieldError(err, field === 'file' ? 'content_base64' : field);
}

function AddSource(props: { baseId: string; onAdded: (s: Source) => void }) {
  const [type, setType] = useState<SourceType>('text');
  const [name, setName] = useState('');
  const [content, setContent] = useState('');
  const [url, setUrl] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const form = useForm(SOURCE_FIELDS, (f) => `kb-source-${f}`);
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Problems<SourceField> = {};
    if ([...name].length > SOURCE_NAME_MAX) problems.name = `At most ${SOURCE_NAME_MAX} characters.`;
    if (type === 'text' && content.trim() === '') problems.content = 'Enter the text.';
    if (type === 'web' && !isHttpUrl(url.trim()))
      problems.url = 'Enter the page’s address (http:// or https://).';
    if (type === 'pdf') {
      if (file) {
        if (file.size > PDF_MAX_BYTES) problems.file = 'The file is larger than 5 MB.';
      } else if (!isHttpUrl(url.trim())) {
        problems.url = 'Enter the PDF’s address (http:// or https://), or choose a file.';
      }
    }
    if (!form.check(problems)) return;
    await form.send(async () => {
      const named = name.trim() ? { name: name.trim() } : {};
      const body =
        type === 'text'
          ? { type, content, ...named }
          : type === 'web'
            ? { type, url: url.trim(), ...named }
            : file
              ? { type, content_base64: await base64Of(file), ...named }
              : { type, url: url.trim(), ...named };
      const added = await unwrap(
        parley().api.POST('/v2/knowledge_base/{knowledge_base_id}/sources', {
          params: { path: { knowledge_base_id: props.baseId } },
          body,
        }),
      );
      setName('');
      setContent('');
      setUrl('');
      setFile(null);
      if (fileInput.current) fileInput.current.value = '';
      props.onAdded(added);
    });
  };

  // The fields this kind of source shows; the API's refusal goes above the button unless one of
  // them shows it.
  const shown: SourceField[] = [
    'name',
    type === 'text' ? 'content' : 'url',
    ...(type === 'pdf' ? ['file' as const] : []),
  ];
  const { errors, unclaimed } = fieldErrors(shown, form.invalid, form.error, (f) =>
    sourceFieldError(form.error, f),
  );

  return (
    <form onSubmit={submit} noValidate aria-busy={form.busy ? 'true' : undefined}>
      <fieldset class="choices">
        <legend>Kind of source</legend>
        {(Object.keys(TYPE_LABELS) as SourceType[]).map((t) => (
          <div key={t}>
            <label class="check">
              <input
                type="radio"
                name="kb-source-type"
                value={t}
                checked={type === t}
                onChange={() => {
                  setType(t);
                  form.setInvalid({});
                  form.setError(undefined);
                }}
              />{' '}
              {TYPE_LABELS[t]}
            </label>
          </div>
        ))}
      </fieldset>
      <InputField
        label="Source name"
        id="kb-source-name"
        error={errors.name}
        hint={
          type === 'text' ? 'Optional.' : 'Optional: without one, the page’s or document’s title is used.'
        }
        type="text"
        autocomplete="off"
        maxLength={SOURCE_NAME_MAX}
        value={name}
        onValue={setName}
      />
      {type === 'text' ? (
        <TextAreaField
          label="Source text"
          id="kb-source-content"
          error={errors.content}
          rows={8}
          value={content}
          onValue={setContent}
        />
      ) : (
        <InputField
          label={type === 'web' ? 'Page address (URL)' : 'PDF address (URL)'}
          id="kb-source-url"
          error={errors.url}
          hint={
            type === 'web'
              ? 'The page is fetched now; its text (without menus, scripts or images) is indexed.'
              : 'Or upload the file below instead.'
          }
          type="url"
          inputMode="url"
          autocomplete="off"
          placeholder="https://example.com/faq"
          value={url}
          onValue={setUrl}
        />
      )}
      {type === 'pdf' ? (
        <Field label="PDF file" id="kb-source-file" error={errors.file} hint="Up to 5 MB.">
          <input
            ref={fileInput}
            id="kb-source-file"
            type="file"
            accept="application/pdf,.pdf"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            {...aria('kb-source-file', true, errors.file)}
          />
        </Field>
      ) : null}
      <ErrorNote error={unclaimed} />
      <FormButtons
        busy={form.busy}
        submit={form.busy ? (type === 'text' ? 'Adding…' : 'Fetching and indexing…') : 'Add source'}
      />
    </form>
  );
}

/**
 * Renames a source, replaces a text source's text or refetches a web or PDF source (the API's
 * update without `type`: only what is given changes).
 */
function EditSource(props: { baseId: string; source: Source; onDone: (saved: Source | null) => void }) {
  const s = props.source;
  const isText = s.type === 'text';
  const [name, setName] = useState(s.name);
  const [content, setContent] = useState('');
  const [url, setUrl] = useState(s.url ?? '');
  const form = useForm<SourceField>(['name', 'url'], (f) => `kb-edit-source-${f}`);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Problems<SourceField> = {};
    const newName = name.trim();
    if (newName === '') problems.name = 'Enter a name.';
    else if ([...newName].length > SOURCE_NAME_MAX) problems.name = `At most ${SOURCE_NAME_MAX} characters.`;
    const newUrl = url.trim();
    if (!isText && s.url !== null && newUrl !== s.url && !isHttpUrl(newUrl))
      problems.url = 'Enter an address starting with http:// or https://.';
    if (!form.check(problems)) return;
    const body = {
      ...(newName !== s.name ? { name: newName } : {}),
      ...(isText && content.trim() !== '' ? { content } : {}),
      ...(!isText && s.url !== null && newUrl !== s.url ? { url: newUrl } : {}),
    };
    if (Object.keys(body).length === 0) {
      props.onDone(null);
      return;
    }
    await form.send(async () => {
      const saved = await unwrap(
        parley().api.PUT('/v2/knowledge_base/{knowledge_base_id}/sources/{source_id}', {
          params: { path: { knowledge_base_id: props.baseId, source_id: s.source_id } },
          body,
        }),
      );
      props.onDone(saved);
    });
  };

  const { errors, unclaimed } = fieldErrors<SourceField>(
    ['name', 'content', 'url'],
    form.invalid,
    form.error,
  );
  return (
    <form onSubmit={submit} noValidate aria-busy={form.busy ? 'true' : undefined}>
      <InputField
        label="Source name"
        id="kb-edit-source-name"
        error={errors.name}
        type="text"
        maxLength={SOURCE_NAME_MAX}
        value={name}
        onValue={setName}
      />
      {isText ? (
        <TextAreaField
          label="New text"
          id="kb-edit-source-content"
          error={errors.content}
          hint="Leave empty to keep the current text; anything typed here replaces it whole."
          rows={8}
          value={content}
          onValue={setContent}
        />
      ) : s.url !== null ? (
        <InputField
          label="Address (URL)"
          id="kb-edit-source-url"
          error={errors.url}
          hint="A new address is fetched and indexed again."
          type="url"
          value={url}
          onValue={setUrl}
        />
      ) : (
        <p class="hint">An uploaded PDF can only be renamed here; add the new file as a new source.</p>
      )}
      <ErrorNote error={unclaimed} />
      <FormButtons busy={form.busy} submit={form.busy ? 'Saving…' : 'Save source'}>
        <button type="button" class="secondary" onClick={() => props.onDone(null)}>
          Cancel
        </button>
      </FormButtons>
    </form>
  );
}
