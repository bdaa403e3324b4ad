// Custom variables arrive in two shapes: the spec's array of `{key, value}` items and the plain
// object the vendor's own integrations send (`{"city": "Oslo"}`). Every operation that takes them
// (calls, batch tasks, outbound chats, inbound-webhook answers) reads them through this one rule.

export type VariableValue = string | number | boolean;
export type VariableMap = Record<string, VariableValue>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalarOf(value: unknown): VariableValue | null {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  // Objects and arrays (only from lenient sources such as an inbound-webhook answer) become their
  // JSON text, so a prompt template still gets something meaningful.
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return null;
}

/**
 * The variables of either shape as one map. Items without a string `key`, and null values, are
 * dropped; a later key wins over an earlier one; anything else (a string, a number) gives `{}`.
 * API bodies are validated before (scalar values only), so there this only changes the shape.
 */
export function toVariableMap(value: unknown): VariableMap {
  const entries: [string, VariableValue][] = [];
  const add = (key: unknown, raw: unknown) => {
    if (typeof key !== 'string') return;
    const scalar = scalarOf(raw);
    if (scalar !== null) entries.push([key, scalar]);
  };
  if (Array.isArray(value)) {
    for (const item of value) if (isPlainObject(item)) add(item.key, item.value);
  } else if (isPlainObject(value)) {
    for (const [key, raw] of Object.entries(value)) add(key, raw);
  }
  // fromEntries defines own properties, so a `__proto__` key cannot reach the prototype.
  return Object.fromEntries(entries);
}
