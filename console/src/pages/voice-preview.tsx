import { useEffect, useState } from 'preact/hooks';
import { currentKey, describe } from '../session.ts';

// The preview needs the key (an <audio src> cannot send it): fetched, then played from a blob URL.
export function VoicePreview(props: { voiceId: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setError(null);
    setUrl(null);
  }, [props.voiceId]);
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  if (!props.voiceId) return null;
  const load = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(`/v2/voices/${encodeURIComponent(props.voiceId)}/preview`, {
        headers: { authorization: `Bearer ${currentKey() ?? ''}` },
      });
      if (!res.ok) {
        setError(res.status === 404 ? 'No preview for this voice.' : `The preview failed (${res.status}).`);
        return;
      }
      setUrl(URL.createObjectURL(await res.blob()));
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="actions">
      {url ? (
        <audio controls autoPlay src={url} aria-label={`Preview of ${props.voiceId}`} />
      ) : (
        <button type="button" class="secondary" onClick={load} disabled={busy}>
          {busy ? 'Loading…' : 'Preview voice'}
        </button>
      )}
      {error ? <span class="field-error">{error}</span> : null}
    </div>
  );
}
