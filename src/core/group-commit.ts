// Group commit: items requested while a commit is running wait and are committed together in
// the next one, so a burst of N requests costs a few round trips, not N. A group that fails is
// retried one item at a time, so a bad item fails alone.

export interface GroupCommitOptions<T, R> {
  /** Commits a group; answers one result per item, in order. */
  commit(items: readonly T[]): Promise<R[]>;
  /** Most items in one group. */
  maxGroup: number;
  /** Told when a group failed and its items are committed one by one. */
  onGroupFailed?: (err: unknown, size: number) => void;
}

/** A function that commits `item` with whatever else is waiting, resolving with its result. */
export function groupCommit<T, R>(options: GroupCommitOptions<T, R>): (item: T) => Promise<R> {
  interface Queued {
    item: T;
    resolve: (result: R) => void;
    reject: (err: unknown) => void;
  }
  let queue: Queued[] = [];
  let flushing = false;

  async function commitOne(q: Queued) {
    try {
      const [result] = await options.commit([q.item]);
      q.resolve(result as R);
    } catch (err) {
      q.reject(err);
    }
  }

  async function flush() {
    flushing = true;
    while (queue.length > 0) {
      const group = queue.slice(0, options.maxGroup);
      queue = queue.slice(group.length);
      if (group.length === 1) {
        await commitOne(group[0]!);
        continue;
      }
      try {
        const results = await options.commit(group.map((q) => q.item));
        group.forEach((q, i) => q.resolve(results[i] as R));
      } catch (err) {
        options.onGroupFailed?.(err, group.length);
        for (const q of group) await commitOne(q);
      }
    }
    flushing = false;
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!flushing) void flush();
    });
}
