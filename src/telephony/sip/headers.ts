// SIP header fields (RFC 3261 section 7.3): names are case-insensitive and have compact forms;
// headers that may appear several times may also hold several comma-separated values in one line.
// Kept in arrival order, looked up by canonical lower-case name.

const COMPACT: Readonly<Record<string, string>> = {
  v: 'via',
  f: 'from',
  t: 'to',
  i: 'call-id',
  m: 'contact',
  l: 'content-length',
  c: 'content-type',
  k: 'supported',
  s: 'subject',
  e: 'content-encoding',
  o: 'event',
  r: 'refer-to',
  b: 'referred-by',
  x: 'session-expires',
  u: 'allow-events',
};

/** How each canonical name is written out (anything else keeps the case it was set with). */
const WRITTEN: Readonly<Record<string, string>> = {
  via: 'Via',
  from: 'From',
  to: 'To',
  'call-id': 'Call-ID',
  cseq: 'CSeq',
  contact: 'Contact',
  'content-length': 'Content-Length',
  'content-type': 'Content-Type',
  'max-forwards': 'Max-Forwards',
  'www-authenticate': 'WWW-Authenticate',
  'proxy-authenticate': 'Proxy-Authenticate',
  'proxy-authorization': 'Proxy-Authorization',
  'record-route': 'Record-Route',
  'refer-to': 'Refer-To',
  'referred-by': 'Referred-By',
  'session-expires': 'Session-Expires',
  'min-se': 'Min-SE',
  'user-agent': 'User-Agent',
  rseq: 'RSeq',
  rack: 'RAck',
};

/** Headers whose values may be comma-separated lists (RFC 3261 section 7.3.1). */
const LISTS = new Set(['via', 'route', 'record-route', 'contact', 'allow', 'supported', 'require']);

export function canonicalName(name: string): string {
  const lower = name.trim().toLowerCase();
  return COMPACT[lower] ?? lower;
}

/** Splits a list header's value on commas outside quotes and angle brackets. */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (quoted) {
      if (ch === '\\') i += 1;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '<') depth += 1;
    else if (ch === '>') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      out.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(value.slice(start).trim());
  return out.filter((v) => v !== '');
}

export class SipHeaders {
  readonly #fields: [name: string, value: string][] = [];

  constructor(fields: Iterable<readonly [string, string]> = []) {
    for (const [name, value] of fields) this.append(name, value);
  }

  append(name: string, value: string): this {
    this.#fields.push([canonicalName(name), value]);
    return this;
  }

  /** Replaces every value of `name` by one. */
  set(name: string, value: string): this {
    this.delete(name);
    return this.append(name, value);
  }

  /** Adds a value in front of the others of its name (a Via as a request passes through). */
  prepend(name: string, value: string): this {
    this.#fields.unshift([canonicalName(name), value]);
    return this;
  }

  delete(name: string): this {
    const key = canonicalName(name);
    for (let i = this.#fields.length - 1; i >= 0; i -= 1)
      if (this.#fields[i]?.[0] === key) this.#fields.splice(i, 1);
    return this;
  }

  has(name: string): boolean {
    const key = canonicalName(name);
    return this.#fields.some(([n]) => n === key);
  }

  /** The first value of `name` (the first element, for list headers). */
  get(name: string): string | undefined {
    return this.getAll(name)[0];
  }

  /** Every value of `name`, list headers split into their elements. */
  getAll(name: string): string[] {
    const key = canonicalName(name);
    const out: string[] = [];
    for (const [n, v] of this.#fields) {
      if (n !== key) continue;
      if (LISTS.has(key)) out.push(...splitList(v));
      else out.push(v.trim());
    }
    return out;
  }

  /** A copy with the same fields. */
  clone(): SipHeaders {
    return new SipHeaders(this.#fields);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const [n, v] of this.#fields)
      yield [WRITTEN[n] ?? n.replace(/(^|-)([a-z])/g, (m) => m.toUpperCase()), v];
  }
}
