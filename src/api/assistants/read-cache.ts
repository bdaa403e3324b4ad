// Serialized agent reads (one agent, one page of agents), remembered together with the
// workspace's agents version they were read at. A read first fetches the current version (one
// primary-key lookup) and uses an entry only when its version is the current one, so every
// process serves what the store holds, with no expiry to tune. The cache is bounded by the total
// length of what it holds; least recently used entries go first.

/** About 64 MiB of JSON text. */
export const AGENT_READ_CACHE_CHARS = 64 * 1024 * 1024;

export interface VersionedCache {
  get(key: string, version: number): string | undefined;
  set(key: string, version: number, value: string): void;
}

export function createVersionedCache(maxChars = AGENT_READ_CACHE_CHARS): VersionedCache {
  const entries = new Map<string, { version: number; value: string }>();
  let held = 0;

  function drop(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    held -= entry.value.length;
  }

  return {
    get(key, version) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.version !== version) {
        drop(key);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, version, value) {
      drop(key);
      // One value may take at most an eighth of the budget, so a few huge pages cannot flush it.
      if (value.length > maxChars / 8) return;
      while (held + value.length > maxChars) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        drop(oldest);
      }
      entries.set(key, { version, value });
      held += value.length;
    },
  };
}
