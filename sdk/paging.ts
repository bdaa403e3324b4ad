// Lists come in pages (`limit`/`offset` with `pagination.total_records`, or a cursor for chats);
// these iterate over every item, one page request at a time, as the caller reads.

export interface OffsetPage<T> {
  items: readonly T[];
  /** Every item the list holds, as the server counted at this page. */
  total: number;
}

/** Every item of a limit/offset list; `fetchPage` asks for one page. */
export async function* eachByOffset<T>(
  fetchPage: (page: { limit: number; offset: number }) => Promise<OffsetPage<T>>,
  pageSize = 100,
): AsyncGenerator<T, void, undefined> {
  let offset = 0;
  for (;;) {
    const { items, total } = await fetchPage({ limit: pageSize, offset });
    yield* items;
    offset += items.length;
    if (items.length === 0 || offset >= total) return;
  }
}

export interface CursorPage<T> {
  items: readonly T[];
  next: string | null | undefined;
}

/** Every item of a cursor list; `fetchPage` asks for the page after `cursor` (none: the first). */
export async function* eachByCursor<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const { items, next } = await fetchPage(cursor);
    yield* items;
    if (!next || items.length === 0) return;
    cursor = next;
  }
}
