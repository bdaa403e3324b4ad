import type { components } from '../../../sdk/index.ts';
import { parley, unwrap } from '../session.ts';
import { ListTable } from '../table.tsx';
import { ErrorNote, Loading, Page, useChange, useLoad, when } from '../ui.tsx';

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
  const change = useChange();
  /** Runs a change to the versions (after `question`, when given), then reads them again. */
  const act = (request: () => Promise<unknown>, question?: string) =>
    void change.run(async () => {
      await request();
      versions.reload();
    }, question);
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
      <ErrorNote error={change.error} />
      <h2>Draft against the live version</h2>
      <Loading state={diff}>
        {(d) => (
          <ListTable
            columns={['Field', 'Live', 'Draft']}
            items={d.changes}
            empty={<p>The draft is the same as the live version.</p>}
            row={(c) => (
              <tr>
                <td>{c.path}</td>
                <td>
                  <code>{JSON.stringify(c.from)}</code>
                </td>
                <td>
                  <code>{JSON.stringify(c.to)}</code>
                </td>
              </tr>
            )}
          />
        )}
      </Loading>
      <h2>Published versions</h2>
      <Loading state={versions}>
        {(v) => (
          <ListTable
            columns={['Version', 'Published', 'Live', 'Actions']}
            items={v.versions}
            empty={<p>Nothing published yet: calls run the draft.</p>}
            row={(version) => {
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
                              parley().api.POST('/v2/assistants/{model_id}/versions/{version_id}/live', at),
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
                        act(
                          () =>
                            unwrap(
                              parley().api.POST(
                                '/v2/assistants/{model_id}/versions/{version_id}/restore',
                                at,
                              ),
                            ),
                          `Replace the draft with version ${version.number}?`,
                        )
                      }
                    >
                      Restore into the draft
                    </button>
                  </td>
                </tr>
              );
            }}
          />
        )}
      </Loading>
    </Page>
  );
}
