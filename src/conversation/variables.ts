// `{variable}` placeholders in prompts and greetings. Values come from the call or chat (custom
// variables, lead fields, metadata) and from the system (date and time in the agent's time zone).
// An unknown placeholder becomes empty and is reported, never an error: a prompt written for
// variables a caller did not send must still run.

export type VariableValue = string | number | boolean | null;
export type Variables = Record<string, VariableValue>;

// An identifier right after `{` and right before `}`: JSON such as {"a": 1} is left alone.
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}/g;

export interface Filled {
  text: string;
  /** Placeholders that had no value, once each, in order of appearance. */
  unknown: string[];
}

export function fillPlaceholders(template: string, variables: Variables): Filled {
  const unknown: string[] = [];
  const text = template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = variables[name];
    if (value === undefined) {
      if (!unknown.includes(name)) unknown.push(name);
      return '';
    }
    return value === null ? '' : String(value);
  });
  return { text, unknown };
}

/** Date and time variables in the agent's time zone (falls back to UTC for an unknown zone). */
export function systemVariables(nowMs: number, timeZone: string): Variables {
  const zone = isTimeZone(timeZone) ? timeZone : 'UTC';
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'long',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(nowMs))
      .map((p) => [p.type, p.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const time = `${parts.hour}:${parts.minute}`;
  return {
    current_date: date,
    current_time: time,
    current_day: parts.weekday ?? '',
    current_datetime: `${date} ${time}`,
    timezone: zone,
  };
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
