import type { ActionGroup } from '../analytics.ts';
import { add, change, dateOf, ranked } from './figures.ts';
import type { ExecutedActions } from './report.ts';

// `executed_actions`: the calls in which each action ran, per day and against the period before.

export function executedActions(groups: readonly ActionGroup[], days: readonly number[]): ExecutedActions {
  const now = new Map<string, number>();
  const before = new Map<string, number>();
  const perDay = new Map<string, Map<number, number>>();
  for (const a of groups) {
    if (a.day === null) {
      add(before, a.name, a.calls);
      continue;
    }
    add(now, a.name, a.calls);
    const perName = perDay.get(a.name) ?? new Map<number, number>();
    add(perName, a.day, a.calls);
    perDay.set(a.name, perName);
  }
  return {
    items: ranked(now).map(([name, value]) => ({
      name,
      value,
      series: days.map((d) => ({ date: dateOf(d), value: perDay.get(name)?.get(d) ?? 0 })),
      percentage_change: change(value, before.get(name) ?? 0),
    })),
  };
}
