import type { ActionVariables } from './types.ts';

// `{name}` placeholders in a custom action's URL, headers, query and JSON body. Only an
// identifier between the braces is a placeholder, so JSON such as {"a": 1} is left alone; a
// placeholder with no value is left as written.

const PLACEHOLDER = /\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}/g;

export type TemplateValues = Record<string, unknown>;

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Plain text (headers, query values); line breaks are removed so a value cannot add a header. */
export function fillText(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (match, name: string) =>
    name in values ? text(values[name]).replace(/[\r\n]+/g, ' ') : match,
  );
}

/** A URL: substituted values are percent-encoded. */
export function fillUrl(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (match, name: string) =>
    name in values ? encodeURIComponent(text(values[name])) : match,
  );
}

/**
 * A JSON body template: inside a string literal a value is inserted JSON-escaped (without
 * quotes); outside one it is inserted as a JSON value (`{count}` → `3`, `{name}` → `"Ann"`).
 */
export function fillJsonBody(template: string, values: TemplateValues): string {
  let out = '';
  let inString = false;
  let i = 0;
  while (i < template.length) {
    const ch = template[i] ?? '';
    if (inString && ch === '\\') {
      out += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (ch === '"') {
      inString = !inString;
      out += ch;
      i += 1;
      continue;
    }
    if (ch === '{') {
      PLACEHOLDER.lastIndex = i;
      const m = PLACEHOLDER.exec(template);
      const name = m?.[1];
      if (m && m.index === i && name !== undefined && name in values) {
        const value = values[name] ?? null;
        out += inString ? JSON.stringify(text(value)).slice(1, -1) : JSON.stringify(value);
        i += m[0].length;
        continue;
      }
    }
    out += ch;
    i += 1;
  }
  PLACEHOLDER.lastIndex = 0;
  return out;
}

export function mergeValues(
  variables: ActionVariables | undefined,
  args: Record<string, unknown>,
): TemplateValues {
  return { ...variables, ...args };
}
