import type { ActionVariables } from './types.ts';

// The one placeholder rule of every action template: a custom action's URL, headers, query
// parameters, `custom_auth` value and JSON body, `variables_before_the_call` values, and message
// texts and WhatsApp `content_variables`. Two spellings name a variable:
//
// - `{name}`: Parley's form (spaces inside the braces are allowed: `{ name }`);
// - `<name>`: the form of the vendor's older documents and examples (`<user_name>`), no spaces.
//
// `name` is an identifier: a letter or `_`, then up to 63 letters, digits, `_`, `.` or `-`.
// A placeholder is replaced only when its name is one of the values being filled in; any other is
// left exactly as written. So JSON such as {"a": 1} and text such as "a < b" or "<3" are never
// touched. A `<name>` is also left alone when the same template closes it with `</name>` (or
// `<\/name>` inside a JSON string): that is an HTML or XML element, such as <title>...</title>,
// even if a variable happens to be called `title`.

const IDENT = '[A-Za-z_][A-Za-z0-9_.-]{0,63}';
const PLACEHOLDER_SOURCE = `\\{\\s*(${IDENT})\\s*\\}|<(${IDENT})>`;
const CLOSING_TAG = new RegExp(`<\\\\?/\\s*(${IDENT})\\s*>`, 'g');

export type TemplateValues = Readonly<Record<string, unknown>>;

interface Placeholder {
  /** Where the placeholder starts and how long it is as written. */
  index: number;
  length: number;
  name: string;
}

/** Names that `</name>` closes in `template`: elements, not placeholders (lower case). */
function closedElements(template: string): ReadonlySet<string> {
  const names = new Set<string>();
  if (!template.includes('/')) return names;
  for (const m of template.matchAll(CLOSING_TAG)) if (m[1]) names.add(m[1].toLowerCase());
  return names;
}

/** Every placeholder of `template`, in order (whether or not a value exists for it). */
function placeholders(template: string): Placeholder[] {
  const out: Placeholder[] = [];
  if (!template.includes('{') && !template.includes('<')) return out;
  const elements = closedElements(template);
  for (const m of template.matchAll(new RegExp(PLACEHOLDER_SOURCE, 'g'))) {
    const braced = m[1];
    const angled = m[2];
    if (angled !== undefined && elements.has(angled.toLowerCase())) continue;
    const name = braced ?? angled;
    if (name !== undefined) out.push({ index: m.index, length: m[0].length, name });
  }
  return out;
}

const has = (values: TemplateValues, name: string) => Object.hasOwn(values, name);

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Replaces each placeholder that has a value with `render(value)`. */
function fill(template: string, values: TemplateValues, render: (value: unknown) => string): string {
  let out = '';
  let at = 0;
  for (const p of placeholders(template)) {
    if (!has(values, p.name)) continue;
    out += template.slice(at, p.index) + render(values[p.name]);
    at = p.index + p.length;
  }
  return at === 0 ? template : out + template.slice(at);
}

/** The names of the placeholders of `templates` (each once, in order of appearance). */
export function placeholderNames(...templates: readonly string[]): string[] {
  const names = new Set<string>();
  for (const template of templates) for (const p of placeholders(template)) names.add(p.name);
  return [...names];
}

/** Plain text (headers, query values, messages); line breaks are removed so a value cannot add a header. */
export function fillText(template: string, values: TemplateValues): string {
  return fill(template, values, (value) => text(value).replace(/[\r\n]+/g, ' '));
}

/** A URL: substituted values are percent-encoded. */
export function fillUrl(template: string, values: TemplateValues): string {
  return fill(template, values, (value) => encodeURIComponent(text(value)));
}

/**
 * A JSON body template: inside a string literal a value is inserted JSON-escaped (without
 * quotes); outside one it is inserted as a JSON value (`{count}` → `3`, `<name>` → `"Ann"`).
 */
export function fillJsonBody(template: string, values: TemplateValues): string {
  const found = placeholders(template).filter((p) => has(values, p.name));
  let out = '';
  let inString = false;
  let i = 0;
  let next = 0;
  while (i < template.length) {
    const p = found[next];
    if (p && p.index === i) {
      const value = values[p.name] ?? null;
      out += inString ? JSON.stringify(text(value)).slice(1, -1) : JSON.stringify(value);
      i += p.length;
      next += 1;
      continue;
    }
    // A placeholder the scan stepped over (inside an escape) is left as written.
    if (p && p.index < i) {
      next += 1;
      continue;
    }
    const ch = template[i] ?? '';
    if (inString && ch === '\\') {
      out += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (ch === '"') inString = !inString;
    out += ch;
    i += 1;
  }
  return out;
}

/**
 * Whether a JSON body template is JSON once its placeholders are filled: each placeholder counts
 * as a value (null outside a string), since which variables a conversation has is not known
 * when the template is written.
 */
export function isJsonBodyTemplate(template: string): boolean {
  const values = Object.fromEntries(placeholderNames(template).map((name) => [name, null]));
  try {
    JSON.parse(fillJsonBody(template, values));
    return true;
  } catch {
    return false;
  }
}

export function mergeValues(
  variables: ActionVariables | undefined,
  args: Record<string, unknown>,
): TemplateValues {
  return { ...variables, ...args };
}
