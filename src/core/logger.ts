import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

// Log rules: secrets are redacted from structured fields; transcripts, prompts and phone numbers
// never go into message text, and only into fields under `pii` (which are redacted unless the
// operator opts in with PARLEY_LOG_PII=1).
const SECRET_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'api_key',
  '*.api_key',
  'webhook_secret',
  '*.webhook_secret',
  'password',
  '*.password',
];

export interface LoggerConfig {
  level: string;
  logPii?: boolean;
  destination?: DestinationStream;
}

export function createLogger(config: LoggerConfig): Logger {
  const options: LoggerOptions = {
    level: config.level,
    redact: { paths: config.logPii ? SECRET_PATHS : [...SECRET_PATHS, 'pii', '*.pii'], censor: '[redacted]' },
  };
  return config.destination ? pino(options, config.destination) : pino(options);
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
