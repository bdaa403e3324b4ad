import { useEffect, useState } from 'preact/hooks';

// Hash routes (#/agents/abc): the server serves one page, and a route never carries the key.

export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function go(...parts: string[]): void {
  location.hash = `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}
