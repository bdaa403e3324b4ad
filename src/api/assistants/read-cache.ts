// Presented agent reads (one agent, one page of agents), remembered together with the workspace's
// agents version they were read at. A read first fetches the current version (one primary-key
// lookup) and uses an entry only when its version is the current one, so every process serves
// what the store holds, with no expiry to tune. Least recently used entries go first.

export const AGENT_READ_CACHE_ENTRIES = 5_000;

export interface VersionedCache<T> {
  get(key: string, version: number): T | undefined;
  set(key: string, version: number, value: T): void;
}

export function createVersionedCache<T>(maxEntries = AGENT_READ_CACHE_ENTRIES): VersionedCache<T> {
  const entries = new Map<string, { version: number; value: T }>();
  return {
    get(key, version) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.version !== version) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, version, value) {
      entries.delete(key);
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, { version, value });
    },
  };
}
