import { notFound } from '../core/index.ts';

// The spec lists no 404 for the agent operations themselves, so an unknown agent is a 400 with
// category not_found there (WIRE.md section 1); the number operations list 404 and use it.
export const agentNotFound = (id: string, status: 400 | 404 = 400) =>
  notFound(`agent ${id} not found`, status);
