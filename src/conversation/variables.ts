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

// Building an Intl.DateTimeFormat costs far more than using one, and sessions are rebuilt for
// every chat message: keep one formatter per zone (null for names that are not zones).
const formatters = new Map<string, Intl.DateTimeFormat | null>();
const MAX_FORMATTERS = 1000;

function formatterFor(timeZone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(timeZone);
  if (formatter !== undefined) return formatter;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'long',
      hourCycle: 'h23',
    });
  } catch {
    formatter = null;
  }
  if (formatters.size >= MAX_FORMATTERS) formatters.clear();
  formatters.set(timeZone, formatter);
  return formatter;
}

/** Date and time variables in the agent's time zone (falls back to UTC for an unknown zone). */
export function systemVariables(nowMs: number, timeZone: string): Variables {
  const known = formatterFor(timeZone);
  const zone = known ? timeZone : 'UTC';
  const formatter = known ?? formatterFor('UTC');
  const parts = Object.fromEntries(
    (formatter?.formatToParts(new Date(nowMs)) ?? []).map((p) => [p.type, p.value]),
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
