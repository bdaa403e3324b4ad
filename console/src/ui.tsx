import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describe } from './session.ts';

// The few building blocks every screen uses: loading with errors in words, labelled fields that
// show the API's complaint beside them, and a pager.

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Parley`;
  }, [props.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title">{props.title}</h1>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </section>
  );
}

export function ErrorNote(props: { error: unknown }) {
  if (props.error === undefined || props.error === null) return null;
  return (
    <p class="error" role="alert">
      {describe(props.error)}
    </p>
  );
}

export function Loading<T>(props: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (props.state.error !== undefined) return <ErrorNote error={props.state.error} />;
  if (props.state.data === undefined) return <p aria-busy="true">Loading…</p>;
  return <>{props.children(props.state.data)}</>;
}

export function Field(props: {
  label: string;
  id: string;
  error?: string | undefined;
  hint?: string;
  children: ComponentChildren;
}) {
  const describedBy = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class={props.error ? 'field invalid' : 'field'} data-describedby={describedBy || undefined}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={`${props.id}-error`} class="field-error" role="alert">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

export function Pager(props: {
  offset: number;
  limit: number;
  total: number;
  onPage: (offset: number) => void;
}) {
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

export function when(ms: string | number | null | undefined): string {
  if (ms === null || ms === undefined || ms === '') return '—';
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toLocaleString();
}
