import type { AgentGroup } from '../analytics.ts';
import { byValue, change } from './figures.ts';
import type { AssistantPerformance } from './report.ts';

// `assistant_performance`: the agents that had calls in the range, ranked by minutes, by calls
// and by success rate, each against the period before.

interface AgentFigures {
  name: string;
  calls: number;
  seconds: number;
  successes: number;
  prevCalls: number;
  prevSeconds: number;
  prevSuccesses: number;
}

/** Each agent's figures in the range and in the period before, in the order the groups name them. */
function figuresPerAgent(groups: readonly AgentGroup[]): Map<string, AgentFigures> {
  const agents = new Map<string, AgentFigures>();
  for (const a of groups) {
    const f = agents.get(a.agentId) ?? {
      name: '',
      calls: 0,
      seconds: 0,
      successes: 0,
      prevCalls: 0,
      prevSeconds: 0,
      prevSuccesses: 0,
    };
    if (a.agentName !== null) f.name = a.agentName;
    if (a.previous) {
      f.prevCalls += a.calls;
      f.prevSeconds += a.seconds;
      f.prevSuccesses += a.successes;
    } else {
      f.calls += a.calls;
      f.seconds += a.seconds;
      f.successes += a.successes;
    }
    agents.set(a.agentId, f);
  }
  return agents;
}

/** Success rate in percent (not rounded). */
const rate = (successes: number, calls: number) => (calls === 0 ? 0 : (successes / calls) * 100);

export function assistantPerformance(groups: readonly AgentGroup[]): AssistantPerformance {
  const active = [...figuresPerAgent(groups).entries()].filter(([, f]) => f.calls > 0);
  const rankedBy = (value: (f: AgentFigures) => number) =>
    [...active].sort(
      byValue(
        ([, f]) => value(f),
        ([id]) => id,
      ),
    );
  return {
    by_minutes_used: rankedBy((f) => f.seconds).map(([id, f]) => ({
      model_id: id,
      name: f.name,
      minutes_used: Math.round(f.seconds / 60),
      percentage_change: change(f.seconds, f.prevSeconds),
    })),
    by_calls_made: rankedBy((f) => f.calls).map(([id, f]) => ({
      model_id: id,
      name: f.name,
      calls_made: f.calls,
      percent_change: change(f.calls, f.prevCalls),
    })),
    by_success_rate: rankedBy((f) => rate(f.successes, f.calls)).map(([id, f]) => ({
      model_id: id,
      name: f.name,
      success_rate: Math.round(rate(f.successes, f.calls)),
      percentage_change: change(rate(f.successes, f.calls), rate(f.prevSuccesses, f.prevCalls)),
    })),
  };
}
