import { createReadStream } from 'node:fs';

// Recipients for `parley batch upload`: an RFC 4180 CSV reader that works on a stream of chunks
// (quoted fields, "" inside quotes, commas and line breaks inside quotes, CRLF, LF or CR line ends,
// a leading UTF-8 BOM), and the mapping of its columns onto batch task items.

/** One CSV record and the 1-based line of the file it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

export class CsvError extends Error {
  override name = 'CsvError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
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

/** Reads recipients from CSV text chunks: the first record is the header. */
export async function* readRecipients(
  chunks: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<Recipient> {
  let map: ((r: CsvRecord) => Recipient | null) | undefined;
  for await (const record of parseCsv(chunks)) {
    if (map === undefined) {
      map = recipientMapper(record);
      continue;
    }
    const recipient = map(record);
    if (recipient) yield recipient;
  }
  if (map === undefined) throw new CsvError('the file is empty (no header row)', 1);
}

/** Streams recipients from a CSV file. */
export function readRecipientsFile(path: string): AsyncGenerator<Recipient> {
  return readRecipients(createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }));
}
