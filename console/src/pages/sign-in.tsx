import { useState } from 'preact/hooks';
import { Field } from '../ui.tsx';
import { describe, signIn, takeSignOutReason } from '../session.ts';

export function SignIn() {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(takeSignOutReason() ?? undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!key.trim()) return setError('Enter an API key.');
    setBusy(true);
    try {
      await signIn(key.trim());
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Parley console</h1>
      <form onSubmit={submit} noValidate>
        <Field
          label="API key"
          id="api-key"
          error={error}
          hint="Kept for this browser session only. A subaccount's key shows its own workspace."
        >
          <input
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            aria-invalid={error ? 'true' : undefined}
            autoFocus
          />
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
