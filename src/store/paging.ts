import { sql, type SelectQueryBuilder } from 'kysely';
import type { Page } from './records.ts';

// One page of a filtered list, newest first (`seq` descending), with the filter's total: the
// page lists (page_number from 1, page_size) of simulations, contacts and webhook logs. `base`
// selects from one table with its filters; `map` turns that table's row into the record.

export async function newestFirstPage<DB, TB extends keyof DB, Row, T>(
  base: SelectQueryBuilder<DB, TB, object>,
  page: { pageNumber: number; pageSize: number },
  map: (row: Row) => T,
): Promise<Page<T>> {
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy(sql`seq`, 'desc')
      .limit(page.pageSize)
      .offset((page.pageNumber - 1) * page.pageSize)
      .execute(),
    base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  // The rows are the table's whole rows, which is what `map` reads.
  return { items: (rows as unknown as Row[]).map(map), total: Number((count as { n: unknown }).n) };
}
