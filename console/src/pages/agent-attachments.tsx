import { useEffect, useState } from 'preact/hooks';
import { eachByOffset, type components } from '../../../sdk/index.ts';
import { parley, unwrap } from '../session.ts';
import { ErrorNote, Loading, Page, useChange, useLoad, type Loaded } from '../ui.tsx';
import { KIND_LABELS } from './actions.tsx';

// The agent's actions and knowledge base: attach or detach the workspace's ones.

type Agent = components['schemas']['Agent'];
type Base = components['schemas']['KnowledgeBase'];

/** Every knowledge base of the workspace, a page of 100 (the most the API gives) at a time. */
async function loadBases(): Promise<Base[]> {
  const bases: Base[] = [];
  const pages = eachByOffset(async (page) => {
    const r = await unwrap(parley().api.GET('/v2/knowledge_base', { params: { query: page } }));
    return { items: r.knowledge_bases, total: r.pagination.total_records };
  }, 100);
  for await (const base of pages) bases.push(base);
  return bases;
}

export function AgentAttachments(props: { agent: Agent; onChange: () => void }) {
  const { agent } = props;
  const model_id = agent.model_id;
  const actions = useLoad(
    async () =>
      (await unwrap(parley().api.GET('/v2/actions', { params: { query: { limit: 200 } } }))).actions,
    [],
  );
  const bases = useLoad(loadBases, []);
  const change = useChange();
  /** Attaches or detaches, then has the agent read again; false when the API refused. */
  const apply = async (request: () => Promise<unknown>): Promise<boolean> => {
    let done = false;
    await change.run(async () => {
      await request();
      done = true;
      props.onChange();
    });
    return done;
  };
  return (
    <Page title={`${agent.name}: actions and knowledge`}>
      <ErrorNote error={change.error} />
      <h2>Actions</h2>
      <AttachList
        items={actions}
        none="The workspace has no actions yet."
        keyOf={(a) => a.action_id}
        label={(a) => `${KIND_LABELS[a.kind] ?? a.kind}: ${a.name || a.description || a.action_id}`}
        attached={(a) => agent.actions.includes(a.action_id)}
        onToggle={(a, attached) => {
          const body = { model_id, actions: [a.action_id] };
          return apply(() =>
            attached
              ? unwrap(parley().api.POST('/v2/actions/detach', { body }))
              : unwrap(parley().api.POST('/v2/actions/attach', { body })),
          );
        }}
      />
      <h2>Knowledge base</h2>
      <AttachList
        items={bases}
        none="The workspace has no knowledge bases yet."
        keyOf={(kb) => kb.knowledge_base_id}
        label={(kb) => kb.name}
        attached={(kb) => agent.knowledge_base_id === kb.knowledge_base_id}
        onToggle={(kb, attached) => {
          const path = { knowledge_base_id: kb.knowledge_base_id };
          return apply(() =>
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
          );
        }}
      />
    </Page>
  );
}

/**
 * The workspace's actions or bases, each checked when it is attached to the agent. A box that was
 * just clicked shows what was asked for, disabled, until the agent read again shows it (or the
 * API refused): a controlled box would otherwise spring back while the request is on its way.
 */
function AttachList<T>(props: {
  items: Loaded<T[]>;
  none: string;
  keyOf: (item: T) => string;
  label: (item: T) => string;
  attached: (item: T) => boolean;
  onToggle: (item: T, attached: boolean) => Promise<boolean>;
}) {
  const [wanted, setWanted] = useState<ReadonlyMap<string, boolean>>(new Map());
  const settle = (key: string) =>
    setWanted((w) => {
      const next = new Map(w);
      next.delete(key);
      return next;
    });
  // The agent read again: what it shows now is what the boxes show.
  useEffect(() => {
    for (const item of props.items.data ?? []) {
      const key = props.keyOf(item);
      if (wanted.get(key) === props.attached(item)) settle(key);
    }
  });
  const toggle = (item: T, attached: boolean) => {
    const key = props.keyOf(item);
    setWanted((w) => new Map(w).set(key, !attached));
    void props.onToggle(item, attached).then((ok) => ok || settle(key));
  };
  return (
    <Loading state={props.items}>
      {(items) =>
        items.length === 0 ? (
          <p>{props.none}</p>
        ) : (
          <ul>
            {items.map((item) => {
              const attached = props.attached(item);
              const asked = wanted.get(props.keyOf(item));
              return (
                <li key={props.keyOf(item)}>
                  <label class="check">
                    <input
                      type="checkbox"
                      checked={asked ?? attached}
                      disabled={asked !== undefined}
                      onChange={() => toggle(item, attached)}
                    />
                    {props.label(item)}
                  </label>
                </li>
              );
            })}
          </ul>
        )
      }
    </Loading>
  );
}
