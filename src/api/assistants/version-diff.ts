import type { PresentedSnapshot } from './version-present.ts';

// The field-by-field difference of two snapshots: config fields by their JSON path
// (`agent.prompt`, `max_duration.duration_seconds`), actions and knowledge bases by id
// (`actions[<action_id>]` when one side lacks it, else `actions[<action_id>].config.url` ...).
// Arrays inside the config (keywords, end-call reasons) are compared as whole values.

export interface Change {
  path: string;
  /** Absent on the `from` side: null. */
  from: unknown;
  to: unknown;
}

const isObject = (v: unknown): v is { [key: string]: unknown } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => same(a[k], b[k]));
  }
  return false;
}

/** Differences of two values under `path`, recursing into objects present on both sides. */
function diffValues(path: string, from: unknown, to: unknown, out: Change[]): void {
  if (same(from, to)) return;
  if (isObject(from) && isObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
    for (const key of keys) diffValues(path === '' ? key : `${path}.${key}`, from[key], to[key], out);
    return;
  }
  out.push({ path, from: from ?? null, to: to ?? null });
}

/** Items of a list keyed by `id`, diffed one by one; the list's order is not compared. */
function diffById<T extends object>(
  name: string,
  from: readonly T[],
  to: readonly T[],
  idOf: (item: T) => string,
  out: Change[],
): void {
  const before = new Map(from.map((item) => [idOf(item), item]));
  const after = new Map(to.map((item) => [idOf(item), item]));
  const ids = [...new Set([...before.keys(), ...after.keys()])];
  for (const id of ids) diffValues(`${name}[${id}]`, before.get(id), after.get(id), out);
}

export function diffSnapshots(from: PresentedSnapshot, to: PresentedSnapshot): Change[] {
  const { actions: fromActions, knowledge_bases: fromBases, ...fromConfig } = from;
  const { actions: toActions, knowledge_bases: toBases, ...toConfig } = to;
  const out: Change[] = [];
  diffValues('', fromConfig, toConfig, out);
  diffById('actions', fromActions, toActions, (a) => a.action_id, out);
  diffById('knowledge_bases', fromBases, toBases, (b) => b.knowledge_base_id, out);
  return out;
}
