// Recipients for a campaign (batch), read from CSV in a browser or in Node (the console and
// `parley batch upload` both use it, so a file reads the same in both): an RFC 4180 CSV reader that
// works on a stream of text chunks (quoted fields, "" inside quotes, commas and line breaks inside
// quotes, CRLF, LF or CR line ends, a leading UTF-8 BOM), the mapping of its columns onto batch task
// items, and the grouping of those into requests.

/** One CSV record and the 1-based line of the file it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/** A mistake in the file; `line` is the 1-based line it is on. */
export class CsvError extends Error {
  override name = 'CsvError';
  constructor(
    /** What is wrong, without the line. */
    readonly reason: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

type State = 'start' | 'unquoted' | 'quoted' | 'quote';

const UNQUOTED_STOP = /[,\r\n]/g;

/** Incremental parser: feed chunks with push(), then call end(); each returns the records completed. */
export class CsvParser {
  private state: State = 'start';
  private field = '';
  private fields: string[] = [];
  private touched = false;
  private line = 1;
  private recordLine = 1;
  private skipLf = false;
  private first = true;

  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    let text = chunk;
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let i = 0;
    const n = text.length;
    while (i < n) {
      if (this.skipLf) {
        this.skipLf = false;
        if (text.charCodeAt(i) === 10) {
          i++;
          continue;
        }
      }
      if (this.state === 'quoted') {
        const q = text.indexOf('"', i);
        const end = q === -1 ? n : q;
        const part = text.slice(i, end);
        this.field += part;
        this.line += countLf(part);
        if (q === -1) {
          i = n;
        } else {
          this.state = 'quote';
          i = q + 1;
        }
        continue;
      }
      const c = text[i]!;
      if (this.state === 'quote') {
        if (c === '"') {
          this.field += '"';
          this.state = 'quoted';
          i++;
          continue;
        }
        if (c !== ',' && c !== '\r' && c !== '\n') {
          throw new CsvError('unexpected character after a closing quote', this.line);
        }
        // fall through to the separator handling below
      } else if (this.state === 'start' && c === '"') {
        this.state = 'quoted';
        this.touched = true;
        i++;
        continue;
      } else if (c !== ',' && c !== '\r' && c !== '\n') {
        // Unquoted text (a stray quote inside it is kept as is).
        UNQUOTED_STOP.lastIndex = i;
        const m = UNQUOTED_STOP.exec(text);
        const end = m ? m.index : n;
        this.field += text.slice(i, end);
        this.state = 'unquoted';
        this.touched = true;
        i = end;
        continue;
      }
      // c is a separator.
      i++;
      if (c === ',') {
        this.fields.push(this.field);
        this.field = '';
        this.state = 'start';
        this.touched = true;
        continue;
      }
      if (c === '\r') this.skipLf = true;
      this.endRecord(out);
      this.line++;
      this.recordLine = this.line;
    }
    return out;
  }

  end(): CsvRecord[] {
    if (this.state === 'quoted') {
      throw new CsvError('quoted field is not closed before the end of the file', this.recordLine);
    }
    const out: CsvRecord[] = [];
    this.endRecord(out);
    return out;
  }

  private endRecord(out: CsvRecord[]): void {
    if (this.touched) {
      this.fields.push(this.field);
      out.push({ fields: this.fields, line: this.recordLine });
    }
    // An empty line is no record.
    this.fields = [];
    this.field = '';
    this.state = 'start';
    this.touched = false;
  }
}

function countLf(s: string): number {
  let count = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) count++;
  return count;
}

/** Parses a stream of text chunks into records. */
export async function* parseCsv(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<CsvRecord> {
  const parser = new CsvParser();
  for await (const chunk of chunks) yield* parser.push(chunk);
  yield* parser.end();
}

/** A file's text as UTF-8, a slice at a time (a million-row file is never held whole). */
export async function* blobText(blob: Blob, sliceBytes = 4 << 20): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for (let at = 0; at < blob.size; at += sliceBytes) {
    const bytes = new Uint8Array(await blob.slice(at, at + sliceBytes).arrayBuffer());
    const text = decoder.decode(bytes, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

// ---- recipients ----

/** A batch task item as POST /v2/calls/batch takes it. */
export interface Task {
  to_phone_number: string;
  lead_name?: string;
  lead_email?: string;
  custom_variables?: Record<string, string>;
  override_model_id?: string;
  id?: string;
}

export interface Recipient {
  task: Task;
  /** The CSV line the row starts on. */
  line: number;
}

type TaskField = 'to_phone_number' | 'lead_name' | 'lead_email' | 'override_model_id' | 'id';

/** Header names (after normalizing: trimmed, lower case, spaces and dashes as `_`) per task field. */
export const COLUMN_ALIASES: Record<TaskField, string[]> = {
  to_phone_number: ['to_phone_number', 'phone', 'phone_number', 'number'],
  lead_name: ['lead_name', 'name'],
  lead_email: ['lead_email', 'email'],
  override_model_id: ['override_model_id'],
  id: ['id'],
};

function normalizeHeader(h: string): string {
  return h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

type Column = { kind: 'field'; field: TaskField } | { kind: 'custom'; key: string } | { kind: 'unnamed' };

/**
 * Turns the header row into a row mapper. The field's own name wins over its aliases (an alias
 * column then becomes a custom variable); two aliases of one field without it are ambiguous.
 */
export function recipientMapper(header: CsvRecord): (record: CsvRecord) => Recipient | null {
  const names = header.fields.map((h) => h.trim());
  const normalized = names.map(normalizeHeader);
  const seen = new Map<string, number>();
  normalized.forEach((h, i) => {
    if (h === '') return;
    const prev = seen.get(h);
    if (prev !== undefined) {
      throw new CsvError(`columns ${prev + 1} and ${i + 1} have the same name "${names[i]}"`, header.line);
    }
    seen.set(h, i);
  });
  const columns: Column[] = names.map((name) =>
    name === '' ? { kind: 'unnamed' } : { kind: 'custom', key: name },
  );
  for (const [field, aliases] of Object.entries(COLUMN_ALIASES) as [TaskField, string[]][]) {
    const own = seen.get(field);
    const candidates = own !== undefined ? [own] : aliases.flatMap((a) => seen.get(a) ?? []);
    if (candidates.length > 1) {
      throw new CsvError(
        `columns ${candidates.map((i) => `"${names[i]}"`).join(' and ')} could each be ${field}; ` +
          `name one of them ${field}`,
        header.line,
      );
    }
    if (candidates[0] !== undefined) columns[candidates[0]] = { kind: 'field', field };
  }
  if (!columns.some((c) => c.kind === 'field' && c.field === 'to_phone_number')) {
    throw new CsvError(
      `no phone number column: name one ${COLUMN_ALIASES.to_phone_number.join(', ')}`,
      header.line,
    );
  }

  return (record) => {
    const task: Partial<Task> = {};
    const custom: Record<string, string> = {};
    let hasCustom = false;
    let empty = true;
    record.fields.forEach((raw, i) => {
      const value = raw.trim();
      if (value === '') return;
      empty = false;
      const column = columns[i];
      if (column === undefined || column.kind === 'unnamed') {
        throw new CsvError(
          column === undefined
            ? `${record.fields.length} fields but the header has ${columns.length}`
            : `a value in column ${i + 1}, which has no name in the header`,
          record.line,
        );
      }
      if (column.kind === 'field') {
        task[column.field] = value;
      } else {
        custom[column.key] = value;
        hasCustom = true;
      }
    });
    // A row of empty cells (a spreadsheet's trailing ",,,") is skipped.
    if (empty) return null;
    if (task.to_phone_number === undefined) throw new CsvError('no phone number', record.line);
    if (hasCustom) task.custom_variables = custom;
    return { task: task as Task, line: record.line };
  };
}

/** Incremental reader of recipients: the first record is the header. */
export class RecipientReader {
  private readonly parser = new CsvParser();
  private map: ((r: CsvRecord) => Recipient | null) | undefined;

  /** The recipients the chunk completes. */
  push(chunk: string): Recipient[] {
    return this.take(this.parser.push(chunk));
  }

  /** The last recipient, if the file does not end with a line break. */
  end(): Recipient[] {
    const out = this.take(this.parser.end());
    if (this.map === undefined) throw new CsvError('the file is empty (no header row)', 1);
    return out;
  }

  private take(records: CsvRecord[]): Recipient[] {
    const out: Recipient[] = [];
    for (const record of records) {
      if (this.map === undefined) {
        this.map = recipientMapper(record);
        continue;
      }
      const recipient = this.map(record);
      if (recipient) out.push(recipient);
    }
    return out;
  }
}

/** Reads recipients from CSV text chunks: the first record is the header. */
export async function* readRecipients(
  chunks: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<Recipient> {
  const reader = new RecipientReader();
  for await (const chunk of chunks) yield* reader.push(chunk);
  yield* reader.end();
}

// ---- splitting into requests ----

/** The server takes at most this many recipients per request. */
export const MAX_TASKS_PER_REQUEST = 10_000;
/** And at most this many in one batch. */
export const MAX_TASKS_PER_BATCH = 1_000_000;
/** Kept under the server's default body limit (PARLEY_BODY_LIMIT_BYTES, 1 MiB), as the CLI does. */
export const MAX_REQUEST_BYTES = 1_000_000;
/** Room for the request's other fields (agent, number, name, start time). */
const ENVELOPE_BYTES = 2_048;

/** Up to MAX_TASKS_PER_REQUEST recipients for one request, with the CSV line of each. */
export interface Chunk {
  tasks: Task[];
  lines: number[];
}

/** Anything but printable ASCII (JSON escapes control characters, so its text rarely has any). */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

/** The length of `s` in UTF-8 (JSON.stringify leaves no lone surrogates). */
export function utf8Length(s: string): number {
  if (!NOT_PRINTABLE_ASCII.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      // A surrogate pair: two code units, four bytes.
      n += 2;
      i++;
    } else {
      n += 2;
    }
  }
  return n;
}

/**
 * Groups recipients into requests of at most `maxTasks` tasks and about `maxBytes` of JSON,
 * holding one request's tasks at a time: add() returns a request once the next recipient would
 * not fit in it, finish() the last one.
 */
export class Chunker {
  private chunk: Chunk = { tasks: [], lines: [] };
  private bytes = ENVELOPE_BYTES;

  constructor(
    private readonly maxTasks = MAX_TASKS_PER_REQUEST,
    private readonly maxBytes = MAX_REQUEST_BYTES,
  ) {}

  add({ task, line }: Recipient): Chunk | undefined {
    const size = utf8Length(JSON.stringify(task)) + 1;
    if (ENVELOPE_BYTES + size > this.maxBytes) {
      throw new CsvError(
        `the row is larger than a request may be (${this.maxBytes.toLocaleString('en-US')} bytes)`,
        line,
      );
    }
    let full: Chunk | undefined;
    if (this.chunk.tasks.length >= this.maxTasks || this.bytes + size > this.maxBytes) {
      full = this.chunk;
      this.chunk = { tasks: [], lines: [] };
      this.bytes = ENVELOPE_BYTES;
    }
    this.chunk.tasks.push(task);
    this.chunk.lines.push(line);
    this.bytes += size;
    return full;
  }

  finish(): Chunk | undefined {
    const last = this.chunk;
    this.chunk = { tasks: [], lines: [] };
    this.bytes = ENVELOPE_BYTES;
    return last.tasks.length > 0 ? last : undefined;
  }
}

/** Recipients grouped into requests (see Chunker). */
export async function* chunkRecipients(
  recipients: AsyncIterable<Recipient> | Iterable<Recipient>,
  maxTasks = MAX_TASKS_PER_REQUEST,
  maxBytes = MAX_REQUEST_BYTES,
): AsyncGenerator<Chunk> {
  const chunker = new Chunker(maxTasks, maxBytes);
  for await (const recipient of recipients) {
    const full = chunker.add(recipient);
    if (full) yield full;
  }
  const last = chunker.finish();
  if (last) yield last;
}

/**
 * The requests a file takes, read from its text chunks. Everything between two text chunks is
 * synchronous: a million rows cost a few hundred awaits, not millions.
 */
export async function* fileChunks(
  text: AsyncIterable<string> | Iterable<string>,
  maxTasks = MAX_TASKS_PER_REQUEST,
  maxBytes = MAX_REQUEST_BYTES,
): AsyncGenerator<Chunk> {
  const reader = new RecipientReader();
  const chunker = new Chunker(maxTasks, maxBytes);
  const full: Chunk[] = [];
  const add = (recipients: Recipient[]) => {
    for (const recipient of recipients) {
      const chunk = chunker.add(recipient);
      if (chunk) full.push(chunk);
    }
  };
  for await (const piece of text) {
    add(reader.push(piece));
    yield* full.splice(0);
  }
  add(reader.end());
  yield* full.splice(0);
  const last = chunker.finish();
  if (last) yield last;
}

export interface FileCheck {
  /** Recipients in the file. */
  total: number;
  /** Requests they take. */
  requests: number;
}

/**
 * Reads every row once, before anything is sent: the count, or the first mistake (a CsvError
 * naming its line). `onProgress` hears the count so far after each request's worth of rows.
 */
export async function checkFile(
  text: AsyncIterable<string> | Iterable<string>,
  onProgress?: (total: number) => void,
): Promise<FileCheck> {
  let total = 0;
  let requests = 0;
  for await (const chunk of fileChunks(text)) {
    total += chunk.tasks.length;
    requests++;
    onProgress?.(total);
  }
  return { total, requests };
}
