import { useState } from 'preact/hooks';
import type { components } from '../../../sdk/index.ts';
import { parley, unwrap } from '../session.ts';
import { ErrorNote, Loading, Page, useLoad, when } from '../ui.tsx';

// Versions: publish the draft, see what changed against the live version, make one live or
// restore it into the draft (a roll-back).

type Agent = components['schemas']['Agent'];

export function AgentVersions(props: { agent: Agent }) {
  const model_id = props.agent.model_id;
  const path = { params: { path: { model_id } } };
  const versions = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/assistants/{model_id}/versions', {
          params: { path: { model_id }, query: { limit: 100 } },
        }),
      ),
    [model_id],
  );
  const diff = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/assistants/{model_id}/versions/diff', {
          params: { path: { model_id }, query: { from: 'live', to: 'draft' } },
        }),
      ),
    [model_id, versions.data],
  );
  const [error, setError] = useState<unknown>(undefined);
  const act = async (run: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await run();
      versions.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Page
      title={`${props.agent.name}: versions`}
      actions={
        <button
          type="button"
          onClick={() =>
            act(() => unwrap(parley().api.POST('/v2/assistants/{model_id}/versions', { ...path, body: {} })))
          }
        >
          Publish the draft
        </button>
      }
    >
      <ErrorNote error={error} />
      <h2>Draft against the live version</h2>
      <Loading state={diff}>
        {(d) =>
          d.changes.length === 0 ? (
            <p>The draft is the same as the live version.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Live</th>
                    <th scope="col">Draft</th>
                  </tr>
                </thead>
                <tbody>
                  {d.changes.map((c) => (
                    <tr>
                      <td>{c.path}</td>
                      <td>
                        <code>{JSON.stringify(c.from)}</code>
                      </td>
                      <td>
                        <code>{JSON.stringify(c.to)}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loading>
      <h2>Published versions</h2>
      <Loading state={versions}>
        {(v) =>
          v.versions.length === 0 ? (
            <p>Nothing published yet: calls run the draft.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Version</th>
                    <th scope="col">Published</th>
                    <th scope="col">Live</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {v.versions.map((version) => {
                    const at = { params: { path: { model_id, version_id: version.version_id } } };
                    return (
                      <tr key={version.version_id}>
                        <td>{version.number}</td>
                        <td>{when(version.created_at)}</td>
                        <td>{version.is_live ? 'Live' : ''}</td>
                        <td class="actions">
                          {version.is_live ? null : (
                            <button
                              type="button"
                              class="secondary"
                              onClick={() =>
                                act(() =>
                                  unwrap(
                                    parley().api.POST(
                                      '/v2/assistants/{model_id}/versions/{version_id}/live',
                                      at,
                                    ),
                                  ),
                                )
                              }
                            >
                              Make live
                            </button>
                          )}
                          <button
                            type="button"
                            class="secondary"
                            onClick={() =>
                              confirm(`Replace the draft with version ${version.number}?`) &&
                              act(() =>
                                unwrap(
                                  parley().api.POST(
                                    '/v2/assistants/{model_id}/versions/{version_id}/restore',
                                    at,
                                  ),
                                ),
                              )
                            }
                          >
                            Restore into the draft
                          </button>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </Loading>
    </Page>
  );
}
