import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useState } from 'preact/hooks';
import { fieldError } from './session.ts';
import { Field } from './ui.tsx';

// Form pieces: labelled controls tied to their hint and error for screen readers, the state of a
// form that checks its fields before it sends, and each field's complaint (the form's own check
// first, else the API's words for it).

/** Complaints by field name. */
export type Problems<F extends string> = Partial<Record<F, string>>;

/** aria attributes of a control inside <Field>: its hint and its error, when shown. */
export function aria(id: string, hint: boolean, error: string | undefined) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy || undefined,
  };
}

interface FieldProps {
  label: string;
  id: string;
  error?: string | undefined;
  hint?: string | undefined;
  value: string;
  onValue: (value: string) => void;
}

/** The `<input>` attributes the console's forms set. */
interface InputAttributes {
  type?: 'text' | 'url' | 'number' | 'date' | 'datetime-local' | 'tel' | 'search' | 'password';
  autocomplete?: 'off';
  inputMode?: 'url' | 'numeric';
  maxLength?: number;
  min?: number;
  max?: number;
  placeholder?: string;
  disabled?: boolean;
}

/** A labelled one-line input. */
export function InputField(props: FieldProps & InputAttributes) {
  const { label, id, error, hint, value, onValue, ...attributes } = props;
  return (
    <Field label={label} id={id} error={error} hint={hint}>
      <input
        id={id}
        // Preact types an input's attributes by its `type`, one union member per type; these
        // attributes fit each of the types listed in InputAttributes.
        {...(attributes as InputHTMLAttributes<HTMLInputElement>)}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        {...aria(id, Boolean(hint), error)}
      />
    </Field>
  );
}

/** A labelled multi-line input. */
export function TextAreaField(
  props: FieldProps & { rows: number; placeholder?: string; spellcheck?: boolean },
) {
  const { label, id, error, hint, value, onValue, ...attributes } = props;
  return (
    <Field label={label} id={id} error={error} hint={hint}>
      <textarea
        id={id}
        {...attributes}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        {...aria(id, Boolean(hint), error)}
      />
    </Field>
  );
}

/** A labelled select; its options are the children. */
export function SelectField(props: FieldProps & { disabled?: boolean; children: ComponentChildren }) {
  const { label, id, error, hint, value, onValue, disabled } = props;
  return (
    <Field label={label} id={id} error={error} hint={hint}>
      <select
        id={id}
        value={value}
        disabled={disabled}
        onChange={(e) => onValue(e.currentTarget.value)}
        {...aria(id, Boolean(hint), error)}
      >
        {props.children}
      </select>
    </Field>
  );
}

/** A labelled checkbox on a line of its own. */
export function CheckField(props: {
  checked: boolean;
  onChecked: (checked: boolean) => void;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label class="check">
        <input
          type="checkbox"
          checked={props.checked}
          onChange={(e) => props.onChecked(e.currentTarget.checked)}
        />
        {props.children}
      </label>
    </div>
  );
}

/** A form's buttons: submit, disabled while the form is sent, then any others. */
export function FormButtons(props: {
  busy: boolean;
  submit: ComponentChildren;
  children?: ComponentChildren;
}) {
  return (
    <div class="actions">
      <button type="submit" disabled={props.busy}>
        {props.submit}
      </button>
      {props.children}
    </div>
  );
}

/** Focuses the first field (in `fields` order) that has a problem; false when none has. */
export function focusFirstProblem<F extends string>(
  problems: Problems<F>,
  fields: readonly F[],
  idOf: (field: F) => string,
): boolean {
  const first = fields.find((f) => problems[f]);
  if (first === undefined) return false;
  document.getElementById(idOf(first))?.focus();
  return true;
}

/** A request under way (`busy`) and the API's refusal of the last one (`error`). */
export function useSending() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const send = async (request: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await request();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, send };
}

/**
 * A form that checks its fields before it sends: `check` shows the problems found beside their
 * fields (`idOf` names each field's control), clears the API's last refusal and focuses the first
 * bad field; it is true when there are none and the request may go.
 */
export function useForm<F extends string>(fields: readonly F[], idOf: (field: F) => string) {
  const [invalid, setInvalid] = useState<Problems<F>>({});
  const sending = useSending();
  const check = (problems: Problems<F>): boolean => {
    setInvalid(problems);
    sending.setError(undefined);
    return !focusFirstProblem(problems, fields, idOf);
  };
  return { ...sending, invalid, setInvalid, check };
}

/**
 * Each field's complaint: the form's own (`invalid`), else the API's words for it (`apiError`,
 * by default the field the API names); and the API's refusal when no field shows it, for a note
 * above the buttons.
 */
export function fieldErrors<F extends string>(
  fields: readonly F[],
  invalid: Problems<F>,
  error: unknown,
  apiError: (field: F) => string | undefined = (field) => fieldError(error, field),
): { errors: Problems<F>; unclaimed: unknown } {
  const errors: Problems<F> = {};
  let claimed = false;
  for (const field of fields) {
    const own = invalid[field];
    const api = own ? undefined : apiError(field);
    const message = own ?? api;
    if (message) errors[field] = message;
    if (api) claimed = true;
  }
  return { errors, unclaimed: claimed ? undefined : error };
}
