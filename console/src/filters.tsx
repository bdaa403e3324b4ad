import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { aria, InputField } from './form.tsx';
import { fieldError } from './session.ts';
import { Field } from './ui.tsx';

// The filter forms of the calls, the webhook logs and the analytics: the filters are edited as a
// draft and applied together (so a half-typed value is not sent), and the API's complaint about
// a filter shows beside the first field it names. Also the fields these forms share.

/**
 * The draft being edited and the filters applied. `apply` (the form's submit) and `clear` set the
 * applied ones (always a new object, so the list is read again) and call `onApply` (back to page 1).
 */
export function useFilters<F extends object>(none: F, onApply: () => void = () => {}) {
  const [draft, setDraft] = useState<F>(none);
  const [applied, setApplied] = useState<F>(none);
  const set = <K extends keyof F>(key: K, value: F[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const apply = (event: Event) => {
    event.preventDefault();
    setApplied({ ...draft });
    onApply();
  };
  const clear = () => {
    setDraft(none);
    setApplied({ ...none });
    onApply();
  };
  return { draft, applied, set, apply, clear };
}

/**
 * The API's complaint about one filter, beside the first of `fields` it names (never two);
 * `refused` when there is one, and so nothing to list.
 */
export function filterErrors<F extends string>(
  err: unknown,
  fields: readonly F[],
): { errors: Partial<Record<F, string>>; refused: boolean } {
  const errors: Partial<Record<F, string>> = {};
  const field = fields.find((f) => fieldError(err, f));
  if (field !== undefined) errors[field] = fieldError(err, field);
  return { errors, refused: field !== undefined };
}

/** Local midnight of a `yyyy-mm-dd` day, in ms since the epoch (`endOf`: its last ms). */
export function dayMs(day: string, endOf: boolean): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = endOf ? new Date(y, m - 1, d + 1).getTime() - 1 : new Date(y, m - 1, d).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/** A select of `labels`' keys, after a first choice (`any`) that filters nothing. */
export function ChoiceFilter<K extends string>(props: {
  label: string;
  id: string;
  any: string;
  labels: Record<K, string>;
  value: K | '';
  onValue: (value: K | '') => void;
  error: string | undefined;
}) {
  const { id, labels, error } = props;
  const isKey = (v: string): v is K => Object.hasOwn(labels, v);
  return (
    <Field label={props.label} id={id} error={error}>
      <select
        id={id}
        value={props.value}
        onChange={(e) => {
          const v = e.currentTarget.value;
          props.onValue(isKey(v) ? v : '');
        }}
        {...aria(id, false, error)}
      >
        <option value="">{props.any}</option>
        {(Object.keys(labels) as K[]).map((k) => (
          <option key={k} value={k}>
            {labels[k]}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** "From" and "To" days (`<prefix>-from`, `<prefix>-to`), with the API's complaints and hints. */
export function DateRange(props: {
  prefix: string;
  from: string;
  to: string;
  onValue: (which: 'from' | 'to', day: string) => void;
  errors: { from?: string | undefined; to?: string | undefined };
  hints?: { from: string; to: string };
}) {
  const { prefix, errors, hints } = props;
  return (
    <>
      {(['from', 'to'] as const).map((end) => (
        <InputField
          key={end}
          label={end === 'from' ? 'From' : 'To'}
          id={`${prefix}-${end}`}
          type="date"
          error={errors[end]}
          hint={hints?.[end]}
          value={props[end]}
          onValue={(day) => props.onValue(end, day)}
        />
      ))}
    </>
  );
}

/** A filter form: its fields, then a button that applies the draft and one that resets it. */
export function FilterForm(props: {
  label: string;
  onApply: (event: Event) => void;
  onReset: () => void;
  apply: string;
  reset: string;
  children: ComponentChildren;
}) {
  return (
    <form class="filters" onSubmit={props.onApply} aria-label={props.label} noValidate>
      {props.children}
      <div class="field filter-buttons">
        <div class="actions">
          <button type="submit">{props.apply}</button>
          <button type="button" class="secondary" onClick={props.onReset}>
            {props.reset}
          </button>
        </div>
      </div>
    </form>
  );
}
