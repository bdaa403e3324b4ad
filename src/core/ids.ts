import { randomUUID } from 'node:crypto';

/** Every id Parley generates is a UUID v4 string (WIRE.md section 1). */
export function newId(): string {
  return randomUUID();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
