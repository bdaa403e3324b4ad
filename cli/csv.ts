import { createReadStream } from 'node:fs';
import { readRecipients, type Recipient } from '../sdk/index.ts';

// Recipients for `parley batch upload`, read by the SDK's CSV reader (sdk/csv.ts, which the console
// uses too, so a file reads the same in both) from a file streamed off disk.

/** Streams recipients from a CSV file. */
export function readRecipientsFile(path: string): AsyncGenerator<Recipient> {
  return readRecipients(createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }));
}
