import { useState } from 'preact/hooks';
import { fieldError, parley, unwrap } from '../session.ts';
import { ErrorNote, Field, Loading, Page, useLoad, when } from '../ui.tsx';

/** The workspace's API keys: create one (its secret is shown once), revoke one. */
export function ApiKeys() {
  const keys = useLoad(() => unwrap(parley().api.GET('/v2/api_keys')), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const key = await unwrap(parley().api.POST('/v2/api_keys', { body: { name } }));
      setCreated(key.api_key);
      setName('');
      keys.reload();
    } catch (e) {
      setError(e);
    }
  };
  const revoke = async (id: string, label: string) => {
    if (!confirm(`Revoke the key "${label}"? Clients using it stop working at once.`)) return;
    setError(undefined);
    try {
      await unwrap(parley().api.DELETE('/v2/api_keys/{key_id}', { params: { path: { key_id: id } } }));
      keys.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Page title="API keys">
      <form onSubmit={create} class="filters" noValidate>
        <Field label="New key's name" id="key-name" error={fieldError(error, 'name')}>
          <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <button type="submit">Create key</button>
        </div>
      </form>
      {created ? (
        <p class="notice" role="status">
          The new key (shown once, copy it now): <code>{created}</code>
        </p>
      ) : null}
      {fieldError(error, 'name') ? null : <ErrorNote error={error} />}
      <Loading state={keys}>
        {(data) => (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Starts with</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="skip">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.api_keys.map((k) => (
                  <tr key={k.id}>
                    <td>{k.name}</td>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td>{when(k.created_at)}</td>
                    <td>
                      <button type="button" class="danger" onClick={() => revoke(k.id, k.name)}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loading>
    </Page>
  );
}
