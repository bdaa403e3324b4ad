import { describe, expect, it } from 'vitest';
import {
  blobText,
  checkFile,
  chunkRecipients,
  CsvError,
  parseCsv,
  readRecipients,
  utf8Length,
  type Chunk,
  type CsvRecord,
  type Recipient,
} from '../../sdk/index.ts';

// The SDK's CSV reader, which the CLI and the console both use: the parser, the recipients it maps,
// a Blob read in slices, and the requests a file takes.

async function records(chunks: string[]): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const r of parseCsv(chunks)) out.push(r);
  return out;
}

async function recipients(text: string | string[]): Promise<Recipient[]> {
  const out: Recipient[] = [];
  for await (const r of readRecipients(typeof text === 'string' ? [text] : text)) out.push(r);
  return out;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Every split of the text into two chunks parses the same as the whole. */
async function sameWhenSplit(text: string): Promise<CsvRecord[]> {
  const whole = await records([text]);
  for (let i = 1; i < text.length; i++) {
    expect(await records([text.slice(0, i), text.slice(i)])).toEqual(whole);
  }
  expect(await records(text.split(''))).toEqual(whole);
  return whole;
}

describe('CSV parser', () => {
  it('reads plain, quoted and escaped fields', async () => {
    const out = await sameWhenSplit('a,b,c\n1,"two, with comma","say ""hi"""\n');
    expect(out).toEqual([
      { fields: ['a', 'b', 'c'], line: 1 },
      { fields: ['1', 'two, with comma', 'say "hi"'], line: 2 },
    ]);
  });

  it('keeps line breaks inside quotes and counts lines after them', async () => {
    const out = await sameWhenSplit('a,b\r\n"line one\r\nline two",x\r\ny,z');
    expect(out).toEqual([
      { fields: ['a', 'b'], line: 1 },
      { fields: ['line one\r\nline two', 'x'], line: 2 },
      { fields: ['y', 'z'], line: 4 },
    ]);
  });

  it('accepts CRLF, LF and CR line ends, a BOM, empty cells and blank lines', async () => {
    const out = await sameWhenSplit('\uFEFFa,b,c\r\n,,\n\n1,,3\r4,5,\r\n');
    expect(out).toEqual([
      { fields: ['a', 'b', 'c'], line: 1 },
      { fields: ['', '', ''], line: 2 },
      { fields: ['1', '', '3'], line: 4 },
      { fields: ['4', '5', ''], line: 5 },
    ]);
  });

  it('rejects an unclosed quote and text after a closing quote, naming the line', async () => {
    const open = await records(['a\n"open\nstill open']).catch((e: unknown) => e);
    expect(open).toBeInstanceOf(CsvError);
    expect((open as CsvError).line).toBe(2);
    expect((open as CsvError).reason).toBe('quoted field is not closed before the end of the file');
    await expect(records(['a,b\n1,"x"y\n'])).rejects.toThrow(
      'line 2: unexpected character after a closing quote',
    );
  });
});

describe('CSV recipients', () => {
  it('maps the columns and their aliases to task fields, the rest to custom_variables', async () => {
    const out = await recipients(
      'Phone Number,Name,EMAIL,override_model_id,id,plan,notes\n' +
        '+14155550100,Ada,ada@example.com,agent-2,row-1,gold,"likes ""solar"", calls"\n' +
        '+14155550101,,,,,,\n',
    );
    expect(out).toEqual([
      {
        line: 2,
        task: {
          to_phone_number: '+14155550100',
          lead_name: 'Ada',
          lead_email: 'ada@example.com',
          override_model_id: 'agent-2',
          id: 'row-1',
          custom_variables: { plan: 'gold', notes: 'likes "solar", calls' },
        },
      },
      { line: 3, task: { to_phone_number: '+14155550101' } },
    ]);
  });

  it('accepts phone and number, and lets the field name win over an alias', async () => {
    expect((await recipients('phone\n+1415\n'))[0]?.task).toEqual({ to_phone_number: '+1415' });
    expect((await recipients('number\n+1415\n'))[0]?.task).toEqual({ to_phone_number: '+1415' });
    expect((await recipients('to_phone_number,phone,lead_name,name\n+1,+2,A,Co\n'))[0]?.task).toEqual({
      to_phone_number: '+1',
      lead_name: 'A',
      custom_variables: { phone: '+2', name: 'Co' },
    });
  });

  it('stops at a row without a number, naming its line', async () => {
    const err = await recipients('phone,name\n+1,A\n"+2",B\n\n,C\n+4,D\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvError);
    expect((err as CsvError).line).toBe(5);
    expect((err as Error).message).toBe('line 5: no phone number');
  });

  it('skips rows of empty cells', async () => {
    expect(await recipients('phone,name\n+1,A\n,\n ,  \n')).toHaveLength(1);
  });

  it('rejects headers without a number column, duplicates and ambiguous aliases', async () => {
    await expect(recipients('name,email\nA,a@x\n')).rejects.toThrow('line 1: no phone number column');
    await expect(recipients('phone,Phone\n1,2\n')).rejects.toThrow('same name');
    await expect(recipients('phone,number\n1,2\n')).rejects.toThrow('could each be to_phone_number');
    await expect(recipients('')).rejects.toThrow('line 1: the file is empty');
  });

  it('rejects values outside the header columns', async () => {
    await expect(recipients('phone,name\n+1,A,extra\n')).rejects.toThrow(
      'line 2: 3 fields but the header has 2',
    );
    await expect(recipients('phone,,x\n+1,v,\n')).rejects.toThrow('line 2: a value in column 2');
    expect(await recipients('phone,name,\n+1,A,,\n')).toHaveLength(1);
  });
});

describe('CSV files and requests', () => {
  it('reads a Blob in slices, whatever the slice cuts (a CRLF, a multi-byte character)', async () => {
    const text = '\uFEFFphone,name\r\n+1,"Zoë ""ü"""\r\n+2,日本\r\n';
    const blob = new Blob([text]);
    for (const size of [1, 2, 3, 5, 64]) {
      const out = await collect(readRecipients(blobText(blob, size)));
      expect(out).toEqual([
        { line: 2, task: { to_phone_number: '+1', lead_name: 'Zoë "ü"' } },
        { line: 3, task: { to_phone_number: '+2', lead_name: '日本' } },
      ]);
    }
  });

  it('counts UTF-8 bytes as the encoder does', () => {
    for (const s of ['', 'abc', 'Zoë', '日本', '😀 ok', JSON.stringify({ a: 'é😀' })]) {
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
    }
  });

  it('splits recipients into requests by count and by size, keeping each CSV line', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => `+1555000${i}`);
    const text = `phone\n${rows.join('\n')}\n`;
    const byCount: Chunk[] = await collect(chunkRecipients(readRecipients([text]), 3));
    expect(byCount.map((c) => c.tasks.length)).toEqual([3, 3, 1]);
    expect(byCount.map((c) => c.lines)).toEqual([[2, 3, 4], [5, 6, 7], [8]]);
    // Each task is {"to_phone_number":"+15550000"} (31 bytes) plus a comma; 2,048 bytes of envelope.
    const bySize = await collect(chunkRecipients(readRecipients([text]), 100, 2_048 + 32 * 2));
    expect(bySize.map((c) => c.tasks.length)).toEqual([2, 2, 2, 1]);
    await expect(collect(chunkRecipients(readRecipients([text]), 100, 2_048 + 10))).rejects.toThrow(
      'line 2: the row is larger than a request may be',
    );
  });

  it('checks a whole file before sending: the count, or the first mistake with its line', async () => {
    const seen: number[] = [];
    expect(await checkFile(['phone\n+1\n+2\n'], (n) => seen.push(n))).toEqual({ total: 2, requests: 1 });
    expect(seen).toEqual([2]);
    expect(await checkFile(['phone\n'])).toEqual({ total: 0, requests: 0 });
    const err = await checkFile(['phone,name\n+1,A\n+2,B,C\n']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CsvError);
    expect((err as CsvError).line).toBe(3);
  });
});
