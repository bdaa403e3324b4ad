// API load of the `voice` case, run as a child process so that the load generator's own work does
// not run on the thread it measures: autocannon at a fixed overall rate, each connection
// alternating GET /v2/assistants/?limit=20 and POST /v2/assistants (an insert in the store).
//   voice-api-load.ts URL API_KEY RATE DURATION_S
// prints one line of JSON: requests, 2xx, non-2xx, errors, latency p50/p99/max (ms).
import autocannon, { type Options } from 'autocannon';

const [url, apiKey, rate, duration] = process.argv.slice(2);
if (!url || !apiKey || !rate || !duration)
  throw new Error('usage: voice-api-load.ts URL API_KEY RATE DURATION_S');

const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
let n = 0;
const options: Options & { overallRate: number } = {
  url,
  connections: 4,
  duration: Number(duration),
  overallRate: Number(rate),
  timeout: 10,
  requests: [
    { method: 'GET', path: '/v2/assistants/?limit=20', headers: { authorization: headers.authorization } },
    {
      method: 'POST',
      path: '/v2/assistants',
      headers,
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({
          type: 'outbound',
          name: `Voice bench agent ${n++}`,
          agent: {
            prompt: 'You are a helpful scheduling agent for Northwind. Keep answers short.',
            greeting_message: 'Thanks for calling Northwind, how can I help you today?',
          },
        }),
      }),
    },
  ],
};
const result = await autocannon(options);
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
  })}\n`,
);
