import { useState } from 'preact/hooks';
import type { components } from '../../../sdk/index.ts';
import { parley, unwrap } from '../session.ts';
import { ErrorNote, Loading, Page, useLoad } from '../ui.tsx';

// The agent's actions and knowledge base: attach or detach the workspace's ones.

type Agent = components['schemas']['Agent'];

export function AgentAttachments(props: { agent: Agent; onChange: () => void }) {
  const { agent } = props;
  const actions = useLoad(
    () => unwrap(parley().api.GET('/v2/actions', { params: { query: { limit: 200 } } })),
    [],
  );
  const bases = useLoad(
    () => unwrap(parley().api.GET('/v2/knowledge_base', { params: { query: { limit: 200 } } })),
    [],
  );
  const [error, setError] = useState<unknown>(undefined);
  const act = async (run: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await run();
      props.onChange();
    } catch (e) {
      setError(e);
    }
  };
  const model_id = agent.model_id;
  return (
    <Page title={`${agent.name}: actions and knowledge`}>
      <ErrorNote error={error} />
      <h2>Actions</h2>
      <Loading state={actions}>
        {(data) =>
          data.actions.length === 0 ? (
            <p>The workspace has no actions yet.</p>
          ) : (
            <ul>
              {data.actions.map((a) => {
                const attached = agent.actions.includes(a.action_id);
                return (
                  <li key={a.action_id}>
                    <label class="check">
                      <input
                        type="checkbox"
                        checked={attached}
                        onChange={() =>
                          act(() =>
                            attached
                              ? unwrap(
                                  parley().api.POST('/v2/actions/detach', {
                                    body: { model_id, actions: [a.action_id] },
                                  }),
                                )
                              : unwrap(
                                  parley().api.POST('/v2/actions/attach', {
                                    body: { model_id, actions: [a.action_id] },
                                  }),
                                ),
                          )
                        }
                      />
                      {a.action_type}: {a.description || a.action_id}
                    </label>
                  </li>
                );
              })}
            </ul>
          )
        }
      </Loading>
      <h2>Knowledge base</h2>
      <Loading state={bases}>
        {(data) =>
          data.knowledge_bases.length === 0 ? (
            <p>The workspace has no knowledge bases yet.</p>
          ) : (
            <ul>
              {data.knowledge_bases.map((kb) => {
                const attached = agent.knowledge_base_id === kb.knowledge_base_id;
                const path = { knowledge_base_id: kb.knowledge_base_id };
                return (
                  <li key={kb.knowledge_base_id}>
                    <label class="check">
                      <input
                        type="checkbox"
                        checked={attached}
                        onChange={() =>
                          act(() =>
                            attached
                              ? unwrap(
                                  parley().api.POST('/v2/knowledge_base/{knowledge_base_id}/detach', {
                                    params: { path },
                                    body: { model_id },
                                  }),
                                )
                              : unwrap(
                                  parley().api.POST('/v2/knowledge_base/{knowledge_base_id}/attach', {
                                    params: { path, query: { model_id } },
                                  }),
                                ),
                          )
                        }
                      />
                      {kb.name}
                    </label>
                  </li>
                );
              })}
            </ul>
          )
        }
      </Loading>
    </Page>
  );
}
