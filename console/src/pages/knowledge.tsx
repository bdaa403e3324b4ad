import { useRef, useState } from 'preact/hooks';
import { ParleyError, type components } from '../../../sdk/index.ts';
import { go, href } from '../router.ts';
import { fieldError, parley, unwrap } from '../session.ts';
import { ErrorNote, Field, Loading, Page, Pager, useLoad, when } from '../ui.tsx';

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

/** aria attributes of a control inside <Field>: its hint and its error, when shown. */
function aria(id: string, hint: boolean, error: string | undefined) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy || undefined,
  };
}

/** A base or source that is not there: 404, or the 400 of a malformed id. */
function isMissing(err: unknown): boolean {
  return err instanceof ParleyError && (err.status === 404 || /not found/i.test(err.description));
}

/** The error to show above a form: the API's, unless it is already beside one of `fields`. */
function formError(err: unknown, fields: string[]): unknown {
  return fields.some((f) => fieldError(err, f)) ? undefined : err;
}

export function Knowledge(props: { id?: string }) {
  return props.id ? <KnowledgeBase id={props.id} /> : <KnowledgeBases />;
}

function KnowledgeBases() {
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () =>
      unwrap(parley().api.GET('/v2/knowledge_base', { params: { query: { limit: BASE_LIMIT, offset } } })),
    [offset],
  );
  const [deleteError, setDeleteError] = useState<unknown>(undefined);
  const remove = async (base: Base) => {
    if (!confirm(`Delete the knowledge base "${base.name}" with all its sources? Agents using it lose it.`))
      return;
    setDeleteError(undefined);
    try {
      await unwrap(
        parley().api.DELETE('/v2/knowledge_base/{knowledge_base_id}', {
          params: { path: { knowledge_base_id: base.knowledge_base_id } },
        }),
      );
      list.reload();
    } catch (err) {
      setDeleteError(err);
    }
  };
  return (
    <Page title="Knowledge bases">
      <ErrorNote error={deleteError} />
      <Loading state={list}>
        {(data) =>
          data.knowledge_bases.length === 0 && offset === 0 ? (
            <p>No knowledge bases yet: create the first one with the form below.</p>
          ) : (
            <>
              <div class="table-wrap">
                <table aria-label="Knowledge bases">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col" class="optional">
                        Consulted
                      </th>
                      <th scope="col" class="optional">
                        Created
                      </th>
                      <th scope="col">
                        <span class="skip">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.knowledge_bases.map((b) => (
                      <tr key={b.knowledge_base_id}>
                        <td>
                          <a href={href('knowledge', b.knowledge_base_id)}>{b.name.trim() || 'Untitled'}</a>
                        </td>
                        <td class="optional">{conditionText(b.rag_use_condition)}</td>
                        <td class="optional">{when(b.created_at)}</td>
                        <td>
                          <button
                            type="button"
                            class="danger"
                            aria-label={`Delete ${b.name}`}
                            onClick={() => void remove(b)}
                          >
                            Delete
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={BASE_LIMIT}
                total={data.pagination.total_records}
                onPage={setOffset}
              />
            </>
          )
        }
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

/** Local checks, as the API makes them: a name of 1 to 200 characters, a condition up to 4,000. */
function checkBase(name: string, condition: string): Partial<Record<'name' | 'rag_use_condition', string>> {
  const problems: Partial<Record<'name' | 'rag_use_condition', string>> = {};
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
  const [invalid, setInvalid] = useState<ReturnType<typeof checkBase>>({});
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems = checkBase(name, condition);
    setInvalid(problems);
    setError(undefined);
    setSaved(false);
    if (problems.name || problems.rag_use_condition) {
      document.getElementById(problems.name ? `${prefix}-name` : `${prefix}-condition`)?.focus();
      return;
    }
    setBusy(true);
    try {
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
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const errors = {
    name: invalid.name ?? fieldError(error, 'name'),
    condition: invalid.rag_use_condition ?? fieldError(error, 'rag_use_condition'),
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={busy ? 'true' : undefined}>
      <Field label="Name" id={`${prefix}-name`} error={errors.name}>
        <input
          id={`${prefix}-name`}
          type="text"
          autocomplete="off"
          maxLength={NAME_MAX}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          {...aria(`${prefix}-name`, false, errors.name)}
        />
      </Field>
      <Field
        label="When the agent consults it"
        id={`${prefix}-condition`}
        error={errors.condition}
        hint={CONDITION_HINT}
      >
        <textarea
          id={`${prefix}-condition`}
          rows={3}
          value={condition}
          placeholder="When the caller asks about opening hours or prices"
          onInput={(e) => setCondition(e.currentTarget.value)}
          {...aria(`${prefix}-condition`, true, errors.condition)}
        />
      </Field>
      <ErrorNote error={formError(error, ['name', 'rag_use_condition'])} />
      {saved ? (
        <p class="notice" role="status">
          Saved.
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {editing ? 'Save changes' : 'Create knowledge base'}
        </button>
      </div>
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
  const [deleteError, setDeleteError] = useState<unknown>(undefined);

  if (base.error !== undefined && isMissing(base.error)) {
    return (
      <Page title="Knowledge base not found">
        <p>This knowledge base does not exist.</p>
        <p>
          <a href={href('knowledge')}>Back to the knowledge bases</a>
        </p>
      </Page>
    );
  }
  if (base.data === undefined) {
    return (
      <Page title="Knowledge base">
        <Loading state={base}>{() => null}</Loading>
      </Page>
    );
  }
  const b = base.data;
  const remove = async () => {
    if (!confirm(`Delete the knowledge base "${b.name}" with all its sources? Agents using it lose it.`))
      return;
    setDeleteError(undefined);
    try {
      await unwrap(
        parley().api.DELETE('/v2/knowledge_base/{knowledge_base_id}', {
          params: { path: { knowledge_base_id: id } },
        }),
      );
      go('knowledge');
    } catch (err) {
      setDeleteError(err);
    }
  };
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
      <ErrorNote error={deleteError} />
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
  const [offset, setOffset] = useState(0);
  const [draftFilter, setDraftFilter] = useState('');
  const [filter, setFilter] = useState('');
  const [editing, setEditing] = useState<Source | null>(null);
  const [rowError, setRowError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState('');
  const list = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/knowledge_base/{knowledge_base_id}/sources', {
          params: {
            path: { knowledge_base_id: baseId },
            query: { limit: SOURCE_LIMIT, offset, ...(filter ? { name: filter } : {}) },
          },
        }),
      ),
    [baseId, offset, filter],
  );
  const editHeading = useRef<HTMLHeadingElement>(null);

  const remove = async (s: Source) => {
    if (!confirm(`Delete the source "${s.name}"? The agent stops finding its text.`)) return;
    setRowError(undefined);
    setNotice('');
    try {
      await unwrap(
        parley().api.DELETE('/v2/knowledge_base/{knowledge_base_id}/sources/{source_id}', {
          params: { path: { knowledge_base_id: baseId, source_id: s.source_id } },
        }),
      );
      if (editing?.source_id === s.source_id) setEditing(null);
      setNotice(`Deleted the source "${s.name}".`);
      list.reload();
    } catch (err) {
      setRowError(err);
    }
  };
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
        <Field label="Name contains" id="kb-source-filter">
          <input
            id="kb-source-filter"
            type="search"
            value={draftFilter}
            maxLength={SOURCE_NAME_MAX}
            onInput={(e) => setDraftFilter(e.currentTarget.value)}
          />
        </Field>
        <div class="field">
          <div class="actions">
            <button type="submit" class="secondary">
              Find
            </button>
          </div>
        </div>
      </form>
      <ErrorNote error={rowError} />
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <Loading state={list}>
        {(data) =>
          data.sources.length === 0 && offset === 0 ? (
            <p>{filter ? 'No source has a name containing this text.' : 'No sources yet: add one below.'}</p>
          ) : (
            <>
              <div class="table-wrap">
                <table aria-label="Sources">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col" class="optional">
                        Beginning of the text
                      </th>
                      <th scope="col" class="optional">
                        Characters
                      </th>
                      <th scope="col" class="optional">
                        Added
                      </th>
                      <th scope="col">
                        <span class="skip">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.sources.map((s) => (
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
                            <button
                              type="button"
                              class="danger"
                              aria-label={`Delete ${s.name}`}
                              onClick={() => void remove(s)}
                            >
                              Delete
                            </button>
                          </div>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                offset={offset}
                limit={SOURCE_LIMIT}
                total={data.pagination.total_records}
                onPage={setOffset}
              />
            </>
          )
        }
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

function AddSource(props: { baseId: string; onAdded: (s: Source) => void }) {
  const [type, setType] = useState<SourceType>('text');
  const [name, setName] = useState('');
  const [content, setContent] = useState('');
  const [url, setUrl] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [invalid, setInvalid] = useState<Partial<Record<SourceField, string>>>({});
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Partial<Record<SourceField, string>> = {};
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
    setInvalid(problems);
    setError(undefined);
    const firstBad = (['name', 'content', 'url', 'file'] as const).find((k) => problems[k]);
    if (firstBad) {
      document.getElementById(`kb-source-${firstBad}`)?.focus();
      return;
    }
    setBusy(true);
    try {
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
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const errors: Partial<Record<SourceField, string>> = {
    name: invalid.name ?? fieldError(error, 'name') ?? fieldError(error, 'title'),
    content: invalid.content ?? fieldError(error, 'content'),
    url: invalid.url ?? fieldError(error, 'url'),
    file: invalid.file ?? fieldError(error, 'content_base64'),
  };
  const shown = [
    'name',
    type === 'text' ? 'content' : 'url',
    ...(type === 'pdf' ? ['file'] : []),
  ] as SourceField[];
  const apiError = shown.some((f) => errors[f] && !invalid[f]) ? undefined : error;

  return (
    <form onSubmit={submit} noValidate aria-busy={busy ? 'true' : undefined}>
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
                  setInvalid({});
                  setError(undefined);
                }}
              />{' '}
              {TYPE_LABELS[t]}
            </label>
          </div>
        ))}
      </fieldset>
      <Field
        label="Source name"
        id="kb-source-name"
        error={errors.name}
        hint={
          type === 'text' ? 'Optional.' : 'Optional: without one, the page’s or document’s title is used.'
        }
      >
        <input
          id="kb-source-name"
          type="text"
          autocomplete="off"
          maxLength={SOURCE_NAME_MAX}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          {...aria('kb-source-name', true, errors.name)}
        />
      </Field>
      {type === 'text' ? (
        <Field label="Source text" id="kb-source-content" error={errors.content}>
          <textarea
            id="kb-source-content"
            rows={8}
            value={content}
            onInput={(e) => setContent(e.currentTarget.value)}
            {...aria('kb-source-content', false, errors.content)}
          />
        </Field>
      ) : (
        <Field
          label={type === 'web' ? 'Page address (URL)' : 'PDF address (URL)'}
          id="kb-source-url"
          error={errors.url}
          hint={
            type === 'web'
              ? 'The page is fetched now; its text (without menus, scripts or images) is indexed.'
              : 'Or upload the file below instead.'
          }
        >
          <input
            id="kb-source-url"
            type="url"
            inputMode="url"
            autocomplete="off"
            placeholder="https://example.com/faq"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            {...aria('kb-source-url', true, errors.url)}
          />
        </Field>
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
      <ErrorNote error={apiError} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? (type === 'text' ? 'Adding…' : 'Fetching and indexing…') : 'Add source'}
        </button>
      </div>
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
  const [invalid, setInvalid] = useState<Partial<Record<SourceField, string>>>({});
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Partial<Record<SourceField, string>> = {};
    const newName = name.trim();
    if (newName === '') problems.name = 'Enter a name.';
    else if ([...newName].length > SOURCE_NAME_MAX) problems.name = `At most ${SOURCE_NAME_MAX} characters.`;
    const newUrl = url.trim();
    if (!isText && s.url !== null && newUrl !== s.url && !isHttpUrl(newUrl))
      problems.url = 'Enter an address starting with http:// or https://.';
    setInvalid(problems);
    setError(undefined);
    const firstBad = (['name', 'url'] as const).find((k) => problems[k]);
    if (firstBad) {
      document.getElementById(`kb-edit-source-${firstBad}`)?.focus();
      return;
    }
    const body = {
      ...(newName !== s.name ? { name: newName } : {}),
      ...(isText && content.trim() !== '' ? { content } : {}),
      ...(!isText && s.url !== null && newUrl !== s.url ? { url: newUrl } : {}),
    };
    if (Object.keys(body).length === 0) {
      props.onDone(null);
      return;
    }
    setBusy(true);
    try {
      const saved = await unwrap(
        parley().api.PUT('/v2/knowledge_base/{knowledge_base_id}/sources/{source_id}', {
          params: { path: { knowledge_base_id: props.baseId, source_id: s.source_id } },
          body,
        }),
      );
      props.onDone(saved);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const errors = {
    name: invalid.name ?? fieldError(error, 'name'),
    content: fieldError(error, 'content'),
    url: invalid.url ?? fieldError(error, 'url'),
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={busy ? 'true' : undefined}>
      <Field label="Source name" id="kb-edit-source-name" error={errors.name}>
        <input
          id="kb-edit-source-name"
          type="text"
          maxLength={SOURCE_NAME_MAX}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          {...aria('kb-edit-source-name', false, errors.name)}
        />
      </Field>
      {isText ? (
        <Field
          label="New text"
          id="kb-edit-source-content"
          error={errors.content}
          hint="Leave empty to keep the current text; anything typed here replaces it whole."
        >
          <textarea
            id="kb-edit-source-content"
            rows={8}
            value={content}
            onInput={(e) => setContent(e.currentTarget.value)}
            {...aria('kb-edit-source-content', true, errors.content)}
          />
        </Field>
      ) : s.url !== null ? (
        <Field
          label="Address (URL)"
          id="kb-edit-source-url"
          error={errors.url}
          hint="A new address is fetched and indexed again."
        >
          <input
            id="kb-edit-source-url"
            type="url"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            {...aria('kb-edit-source-url', true, errors.url)}
          />
        </Field>
      ) : (
        <p class="hint">An uploaded PDF can only be renamed here; add the new file as a new source.</p>
      )}
      <ErrorNote error={formError(error, ['name', 'content', 'url'])} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save source'}
        </button>
        <button type="button" class="secondary" onClick={() => props.onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
