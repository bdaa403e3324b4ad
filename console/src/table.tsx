import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLoad, type Loaded } from './ui.tsx';

// Tables of records: the headings given as a list of columns, the rows as children; a list's
// table with the pager under it and what shows instead when it is empty; the pager itself, and
// the state of a list read a page at a time.

/**
 * A column's heading: a plain string, or `optional` (hidden on a phone, where the row is too
 * narrow), or `unseen` (a name for screen readers only, over a column of buttons).
 */
export type Column = string | { label: string; optional?: boolean; unseen?: boolean };

/** Columns hidden on a phone: `...optional('Created', 'Updated')`. */
export const optional = (...labels: string[]): Column[] => labels.map((label) => ({ label, optional: true }));

/** The column of a row's buttons (edit, delete): no visible heading. */
export const BUTTONS_COLUMN: Column = { label: 'Actions', unseen: true };

function Heading(props: { column: Column }) {
  const c = typeof props.column === 'string' ? { label: props.column } : props.column;
  return (
    <th scope="col" class={c.optional ? 'optional' : undefined}>
      {c.unseen ? <span class="skip">{c.label}</span> : c.label}
    </th>
  );
}

export function Table(props: {
  columns: Column[];
  /** The table's accessible name, or the id of the heading that names it. */
  label?: string;
  labelledBy?: string;
  caption?: string;
  /** Set while a newer page loads, so the rows shown are marked as about to change. */
  busy?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap" aria-busy={props.busy ? 'true' : undefined}>
      <table aria-label={props.label} aria-labelledby={props.labelledBy}>
        {props.caption ? <caption class="hint">{props.caption}</caption> : null}
        <thead>
          <tr>
            {props.columns.map((column, i) => (
              <Heading key={i} column={column} />
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** Where a list is: the first row shown, the page size, the total, and how to go elsewhere. */
export interface Paging {
  offset: number;
  limit: number;
  total: number;
  onPage: (offset: number) => void;
}

/**
 * A list read a page of `limit` at a time by offset: `load` gets the page to read (and runs again
 * when it or `deps` change); `paging(total)` is the pager's state once the total is known.
 */
export function usePagedList<T>(
  limit: number,
  load: (page: { limit: number; offset: number }) => Promise<T>,
  deps: unknown[] = [],
): {
  list: Loaded<T>;
  offset: number;
  setOffset: (offset: number) => void;
  paging: (total: number) => Paging;
} {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => load({ limit, offset }), [...deps, offset]);
  return { list, offset, setOffset, paging: (total) => ({ offset, limit, total, onPage: setOffset }) };
}

/** `Paging` for the routes that take a page number (1, 2, …) instead of an offset. */
export function byPageNumber(
  page: number,
  size: number,
  total: number,
  onPage: (page: number) => void,
): Paging {
  return {
    offset: (page - 1) * size,
    limit: size,
    total,
    onPage: (offset) => onPage(Math.floor(offset / size) + 1),
  };
}

export function Pager(props: Paging) {
  const { offset, limit, total } = props;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => props.onPage(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span>
        {total === 0
          ? 'None'
          : `${(offset + 1).toLocaleString()}–${last.toLocaleString()} of ${total.toLocaleString()}`}
      </span>
      <button type="button" disabled={last >= total} onClick={() => props.onPage(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

/**
 * A list's table: a row per item and, when `paging` is given, the pager under it. With no items,
 * `empty` shows instead when given (left out, the empty table shows, as on a page past the end).
 */
export function ListTable<T>(props: {
  columns: Column[];
  label?: string;
  labelledBy?: string;
  busy?: boolean;
  items: readonly T[];
  row: (item: T) => ComponentChildren;
  paging?: Paging | undefined;
  empty?: ComponentChildren;
}) {
  const { items, paging, empty } = props;
  if (items.length === 0 && empty !== undefined) return <>{empty}</>;
  return (
    <>
      <Table columns={props.columns} label={props.label} labelledBy={props.labelledBy} busy={props.busy}>
        {items.map((item) => props.row(item))}
      </Table>
      {paging ? <Pager {...paging} /> : null}
    </>
  );
}
