import { href } from '../router.ts';
import { parley, unwrap } from '../session.ts';
import { ListTable, optional, usePagedList } from '../table.tsx';
import { Loading, Page, when } from '../ui.tsx';

const LIMIT = 50;

export function Agents() {
  const { list, paging } = usePagedList(LIMIT, (page) =>
    unwrap(parley().api.GET('/v2/assistants/', { params: { query: page } })),
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
        {(data) => (
          <ListTable
            columns={['Name', 'Type', ...optional('Phone number', 'Updated')]}
            items={data.assistants}
            empty={
              <p>
                No agents yet. <a href={href('agents', 'new')}>Create the first one.</a>
              </p>
            }
            paging={paging(data.pagination.total_records)}
            row={(a) => (
              <tr key={a.model_id}>
                <td>
                  <a href={href('agents', a.model_id)}>{a.name}</a>
                </td>
                <td>{a.type}</td>
                <td class="optional">{a.phone_number || '—'}</td>
                <td class="optional">{when(a.updated_at)}</td>
              </tr>
            )}
          />
        )}
      </Loading>
    </Page>
  );
}
