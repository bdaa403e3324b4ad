import { useState } from 'preact/hooks';
import { fieldError, parley, unwrap } from '../session.ts';
import { BUTTONS_COLUMN, optional, Table } from '../table.tsx';
import { ErrorNote, Field, Loading, Notice, Page, useChange, useLoad, when } from '../ui.tsx';

/** The workspace's API keys: create one (its secret is shown once), revoke one. */
export function ApiKeys() {
  const keys = useLoad(() => unwrap(parley().api.GET('/v2/api_keys')), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  // Creating and revoking share one place for the API's refusal.
  const change = useChange();
  const error = change.error;
  const create = (event: Event) => {
    event.preventDefault();
    void change.run(async () => {
      const key = await unwrap(parley().api.POST('/v2/api_keys', { body: { name } }));
      setCreated(key.api_key);
      setName('');
      keys.reload();
    });
  };
  const revoke = (id: string, label: string) =>
    change.run(async () => {
      await unwrap(parley().api.DELETE('/v2/api_keys/{key_id}', { params: { path: { key_id: id } } }));
      keys.reload();
    }, `Revoke the key "${label}"? Clients using it stop working at once.`);
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
        <Notice>
          The new key (shown once, copy it now): <code>{created}</code>
        </Notice>
      ) : null}
      {fieldError(error, 'name') ? null : <ErrorNote error={error} />}
      <Loading state={keys}>
        {(data) => (
          <Table columns={['Name', 'Starts with', ...optional('Created'), BUTTONS_COLUMN]}>
            {data.api_keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td class="optional">{when(k.created_at)}</td>
                <td>
                  <button type="button" class="danger" onClick={() => void revoke(k.id, k.name)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loading>
    </Page>
  );
}
