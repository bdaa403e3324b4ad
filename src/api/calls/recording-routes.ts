import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { FINAL_STATUSES } from '../../calls/index.ts';
import { ParleyError, conflict, invalidInput, isUuid, notFound } from '../../core/index.ts';
import type { RecordingStorage, Store } from '../../store/index.ts';
import { StatusOnly, errorResponses } from '../schemas/common.ts';
import { CallIdParams } from './schemas.ts';

// A call's recording (`recording_url`: a stereo WAV, the caller left and the agent right), served
// to the workspace's key, with byte ranges for players that seek; and deleting a finished call,
// which deletes its recording too (the published API has no such route; the hosted platforms do).

const TAG = ['Calls'];

function callIdOf(params: { call_id: string }): string {
  if (!isUuid(params.call_id)) throw invalidInput('params.call_id must be a UUID', ['params', 'call_id']);
  return params.call_id;
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` within `size`; null: serve it all; 'unsatisfiable'. */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | null | 'bad' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'bad';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(size - 1, Number(match[2]));
  if (start >= size || end < start) return 'bad';
  return { start, end };
}

export const callRecordingRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  recordings: RecordingStorage;
}> = async (app, { store, recordings }) => {
  app.get(
    '/calls/:call_id/recording',
    {
      schema: {
        tags: TAG,
        summary: "A call's recording: stereo WAV, the caller left and the agent right",
        params: CallIdParams,
        response: {
          200: Type.Unsafe<NodeJS.ReadableStream>({ type: 'string', format: 'binary' }),
          206: Type.Unsafe<NodeJS.ReadableStream>({ type: 'string', format: 'binary' }),
          ...errorResponses(400, 401, 404, 416),
        },
      },
    },
    async (request, reply) => {
      const id = callIdOf(request.params);
      const call = await store.calls.get(request.workspace.id, id);
      if (!call) throw notFound(`call ${id} not found`);
      const recording = await recordings.open(request.workspace.id, id);
      if (!recording) throw notFound(`call ${id} has no recording`);
      const range = rangeOf(request.headers.range, recording.size);
      reply.header('content-type', 'audio/wav').header('accept-ranges', 'bytes');
      if (range === 'bad') {
        reply.header('content-range', `bytes */${recording.size}`);
        throw new ParleyError('headers.range is outside the recording', {
          code: 'range_not_satisfiable',
          status: 416,
          category: 'validation',
        });
      }
      if (!range) return reply.header('content-length', recording.size).send(recording.stream());
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${recording.size}`)
        .header('content-length', range.end - range.start + 1)
        .send(recording.stream(range));
    },
  );

  app.delete(
    '/calls/:call_id',
    {
      schema: {
        tags: TAG,
        summary: 'Delete a finished call and its recording',
        params: CallIdParams,
        response: {
          200: StatusOnly,
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      const id = callIdOf(request.params);
      const workspaceId = request.workspace.id;
      const call = await store.calls.get(workspaceId, id);
      if (!call) throw notFound(`call ${id} not found`);
      if (!(await store.calls.remove(workspaceId, id, FINAL_STATUSES)))
        throw conflict(`call ${id} is ${call.status}: only a finished call can be deleted`);
      await recordings.remove(workspaceId, id);
      return { status: 'ok' as const };
    },
  );
};
