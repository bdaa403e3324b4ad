import { useState } from 'preact/hooks';
import { parley, unwrap } from '../session.ts';
import { Loading, Page, Pager, useLoad } from '../ui.tsx';

const LIMIT = 50;

/** The workspace's numbers, with their agents and, for SIP trunks, the registration state. */
export function Numbers() {
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () => unwrap(parley().api.GET('/v2/numbers', { params: { query: { limit: LIMIT, offset } } })),
    [offset],
  );
  return (
    <Page title="Numbers">
      <Loading state={list}>
        {(data) =>
          data.numbers.length === 0 ? (
            <p>No numbers yet: add one through the API (POST /v2/custom-numbers).</p>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Number</th>
                      <th scope="col">Provider</th>
                      <th scope="col">Agents</th>
                      <th scope="col">Trunk registration</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.numbers.map((n) => (
                      <tr key={n.slug}>
                        <td>{n.phone_number}</td>
                        <td>{n.provider}</td>
                        <td>{n.attached_agents.length}</td>
                        <td>
                          {n.sip_registration
                            ? `${n.sip_registration.state}${n.sip_registration.last_error ? `: ${n.sip_registration.last_error}` : ''}`
                            : n.uac_enabled
                              ? 'not yet'
                              : '—'}
                        </td>
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
