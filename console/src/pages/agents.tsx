import { useState } from 'preact/hooks';
import { href } from '../router.ts';
import { parley, unwrap } from '../session.ts';
import { Loading, Page, Pager, useLoad, when } from '../ui.tsx';

const LIMIT = 50;

export function Agents() {
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () => unwrap(parley().api.GET('/v2/assistants/', { params: { query: { limit: LIMIT, offset } } })),
    [offset],
  );
  return (
    <Page
      title="Agents"
      actions={
        <a class="button" href={href('agents', 'new')}>
          New agent
        </a>
      }
    >
      <Loading state={list}>
        {(data) =>
          data.assistants.length === 0 ? (
            <p>
              No agents yet. <a href={href('agents', 'new')}>Create the first one.</a>
            </p>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col" class="optional">
                        Phone number
                      </th>
                      <th scope="col" class="optional">
                        Updated
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.assistants.map((a) => (
                      <tr key={a.model_id}>
                        <td>
                          <a href={href('agents', a.model_id)}>{a.name}</a>
                        </td>
                        <td>{a.type}</td>
                        <td class="optional">{a.phone_number || '—'}</td>
                        <td class="optional">{when(a.updated_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager offset={offset} limit={LIMIT} total={data.pagination.total_records} onPage={setOffset} />
            </>
          )
        }
      </Loading>
    </Page>
  );
}
