// The success envelope of every /v2 response (WIRE.md section 1).
export interface Ok<T> {
  status: 'ok';
  response: T;
}

export function ok<T>(response: T): Ok<T> {
  return { status: 'ok', response };
}

export interface Pagination {
  total_records: number;
  limit: number;
  offset: number;
}
