import { useMemo } from 'preact/hooks';
import { allAgents, type components } from '../../sdk/index.ts';
import { aria, SelectField } from './form.tsx';
import { describe, parley } from './session.ts';
import { ErrorNote, Field, type Loaded } from './ui.tsx';

// Choosing an agent: the forms and filters that offer every agent of the workspace load them all
// (a page of 1,000 at a time) and list each by its name, or by its id when it has none.

type Agent = components['schemas']['Agent'];

/** Every agent, sorted by name, or in the API's order (`as listed`). */
export async function loadAgents(order: 'by name' | 'as listed' = 'by name'): Promise<Agent[]> {
  const agents: Agent[] = [];
  for await (const agent of allAgents(parley(), {}, 1000)) agents.push(agent);
  return order === 'by name' ? agents.sort((a, b) => a.name.localeCompare(b.name)) : agents;
}

/** Each agent's name by its id, for the rows of a list (its id when it has no name). */
export function useAgentNames(agents: Loaded<Agent[]>): Map<string, string> {
  return useMemo(
    () => new Map((agents.data ?? []).map((a) => [a.model_id, a.name || a.model_id])),
    [agents.data],
  );
}

function AgentOptions(props: { agents: Agent[] | undefined }) {
  return (
    <>
      {(props.agents ?? []).map((a) => (
        <option key={a.model_id} value={a.model_id}>
          {a.name || a.model_id}
        </option>
      ))}
    </>
  );
}

/** A filter's "Agent": all agents, or one (a note under it when the agents could not be loaded). */
export function AgentFilter(props: {
  id: string;
  agents: Loaded<Agent[]>;
  value: string;
  onValue: (modelId: string) => void;
  error: string | undefined;
}) {
  const { id, agents, error } = props;
  return (
    <Field
      label="Agent"
      id={id}
      error={error}
      hint={agents.error !== undefined ? `Agents not loaded: ${describe(agents.error)}` : undefined}
    >
      <select
        id={id}
        value={props.value}
        onChange={(e) => props.onValue(e.currentTarget.value)}
        {...aria(id, false, error)}
      >
        <option value="">All agents</option>
        <AgentOptions agents={agents.data} />
      </select>
    </Field>
  );
}

/**
 * A form's agent, to choose (disabled while the agents load); why they could not be loaded shows
 * above it.
 */
export function AgentField(props: {
  label: string;
  id: string;
  agents: Loaded<Agent[]>;
  value: string;
  onValue: (modelId: string) => void;
  error: string | undefined;
  hint?: string;
  disabled?: boolean;
}) {
  const { agents } = props;
  const loading = agents.data === undefined && agents.error === undefined;
  return (
    <>
      <ErrorNote error={agents.error} />
      <SelectField
        label={props.label}
        id={props.id}
        error={props.error}
        hint={props.hint}
        disabled={props.disabled || loading}
        value={props.value}
        onValue={props.onValue}
      >
        <option value="">{loading ? 'Loading agents…' : 'Choose an agent'}</option>
        <AgentOptions agents={agents.data} />
      </SelectField>
    </>
  );
}
