// Parley's TypeScript SDK: `import { createParley, unwrap } from 'parley/sdk'`.
// The types are generated from the server's OpenAPI document (schema.ts, by generate.ts); the rest
// is a small hand-written layer: the envelope and errors, paging, webhook verification, the WS media
// call, and campaign recipients from CSV.
export {
  createParley,
  unwrap,
  ParleyError,
  type Parley,
  type ParleyOptions,
  type ErrorBody,
  type FieldError,
} from './client.ts';
export { eachByOffset, eachByCursor, type OffsetPage, type CursorPage } from './paging.ts';
export { allAgents, allCalls, allBatches, allBatchTasks, allChats } from './lists.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.ts';
export type { paths, components } from './schema.ts';
export {
  startWebCall,
  describeClose,
  WebCallError,
  WEB_CALL_CLOSE_CODES,
  type WebCall,
  type WebCallClose,
  type WebCallCodec,
  type WebCallFraming,
  type WebCallLine,
  type WebCallOptions,
  type WebCallOpus,
  type WebCallOpusFactory,
  type WebCallOpusSinks,
  type WebCallStats,
  type WebSocketConstructor,
  type WebSocketLike,
} from './ws-media.ts';
export { webCodecsOpus, hasWebCodecsAudio } from './webcodecs-opus.ts';
export { ResponseTimer, levelDb } from './response-timer.ts';
export {
  blobText,
  checkFile,
  chunkRecipients,
  fileChunks,
  readRecipients,
  recipientMapper,
  parseCsv,
  utf8Length,
  Chunker,
  CsvError,
  CsvParser,
  RecipientReader,
  COLUMN_ALIASES,
  MAX_REQUEST_BYTES,
  MAX_TASKS_PER_BATCH,
  MAX_TASKS_PER_REQUEST,
  type Chunk,
  type CsvRecord,
  type FileCheck,
  type Recipient,
  type Task,
} from './csv.ts';
