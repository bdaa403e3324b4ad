import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describe } from './session.ts';

// The few building blocks every screen uses: loading with errors in words, labelled fields that
// show the API's complaint beside them, the pages of a record that is loading or not there, small
// pieces of a page (a notice, a counter, a term, a row's delete button), and changes made from a
// button (delete, attach) with their refusal kept for an <ErrorNote>.

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

/** What shows until a record comes: "Loading…", or why it did not come. */
function Pending(props: { error: unknown }) {
  if (props.error !== undefined) return <ErrorNote error={props.error} />;
  return <p aria-busy="true">Loading…</p>;
}

export function Loading<T>(props: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (props.state.error !== undefined || props.state.data === undefined)
    return <Pending error={props.state.error} />;
  return <>{props.children(props.state.data)}</>;
}

export function Field(props: {
  label: string;
  id: string;
  error?: string | undefined;
  hint?: string | undefined;
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

/** A record's page while the record is loading (or could not be). */
export function LoadingPage(props: { title: string; error: unknown }) {
  return (
    <Page title={props.title}>
      <Pending error={props.error} />
    </Page>
  );
}

/** A record's page when the record is not there (`thing`: "action"), with the way back to its list. */
export function NotFound(props: { thing: string; back: string; backText: string }) {
  const { thing } = props;
  return (
    <Page title={`${thing.charAt(0).toUpperCase()}${thing.slice(1)} not found`}>
      <p>{`This ${thing} does not exist.`}</p>
      <p>
        <a href={props.back}>{props.backText}</a>
      </p>
    </Page>
  );
}

/** A short confirmation of what was just done ("Saved."), read out by screen readers. */
export function Notice(props: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {props.children}
    </p>
  );
}

/** One of a `<div class="counters">` row: a number in large type and what it counts. */
export function Counter(props: { value: ComponentChildren; children: ComponentChildren }) {
  return (
    <div>
      <strong>{props.value}</strong> {props.children}
    </div>
  );
}

/** One term of a `<dl class="details">`; `breakable` values may wrap anywhere (URLs, ids). */
export function Term(props: { label: string; breakable?: boolean; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd class={props.breakable ? 'break' : undefined}>{props.children}</dd>
    </div>
  );
}

/** A table row's delete button, named for screen readers by what it deletes. */
export function DeleteButton(props: { name: string; onClick: () => void }) {
  return (
    <button type="button" class="danger" aria-label={`Delete ${props.name}`} onClick={props.onClick}>
      Delete
    </button>
  );
}

/**
 * A change made from a button (delete, attach, revoke): `run` asks `question` first when given,
 * clears the last refusal, and keeps the one the change throws, for an <ErrorNote>.
 */
export function useChange(): {
  error: unknown;
  run: (change: () => Promise<unknown>, question?: string) => Promise<void>;
} {
  const [error, setError] = useState<unknown>(undefined);
  const run = async (change: () => Promise<unknown>, question?: string) => {
    if (question !== undefined && !confirm(question)) return;
    setError(undefined);
    try {
      await change();
    } catch (err) {
      setError(err);
    }
  };
  return { error, run };
}

/** A heading further down the page (the form under a list), and `jump` to bring it into view. */
export function useJumpTarget() {
  const heading = useRef<HTMLHeadingElement>(null);
  const jump = () => {
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus();
  };
  return { heading, jump };
}

export function when(ms: string | number | null | undefined): string {
  if (ms === null || ms === undefined || ms === '') return '—';
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toLocaleString();
}

/** `3 recipients`, `1 recipient`: a count with its noun. */
export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString()} ${n === 1 ? one : many}`;
