// JSON columns: written as text on both dialects (PostgreSQL casts it into jsonb), read back as
// text from SQLite and as already-parsed values from PostgreSQL.

export function toJson(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJson<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return JSON.parse(value) as T;
  return value as T;
}
