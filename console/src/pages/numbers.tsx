import { parley, unwrap } from '../session.ts';
import { ListTable, optional, usePagedList } from '../table.tsx';
import { Loading, Page } from '../ui.tsx';

const LIMIT = 50;

/** The workspace's numbers, with their agents and, for SIP trunks, the registration state. */
export function Numbers() {
  const { list, paging } = usePagedList(LIMIT, (page) =>
    unwrap(parley().api.GET('/v2/numbers', { params: { query: page } })),
  );
  return (
    <Page title="Numbers">
      <Loading state={list}>
        {(data) => (
          <ListTable
            columns={['Number', ...optional('Provider'), 'Agents', 'Trunk registration']}
            items={data.numbers}
            empty={<p>No numbers yet: add one through the API (POST /v2/custom-numbers).</p>}
            paging={paging(data.pagination.total_records)}
            row={(n) => (
              <tr key={n.slug}>
                <td>{n.phone_number}</td>
                <td class="optional">{n.provider}</td>
                <td>{n.attached_agents.length}</td>
                <td>
                  {n.sip_registration
                    ? `${n.sip_registration.state}${n.sip_registration.last_error ? `: ${n.sip_registration.last_error}` : ''}`
                    : n.uac_enabled
                      ? 'not yet'
                      : '—'}
                </td>
              </tr>
            )}
          />
        )}
      </Loading>
    </Page>
  );
}
