// Listing client of the campaign case (b), run as a child process of its own: the bench process
// has just built a million recipients for the ingest, and its garbage collections would add to
// the latency measured. Sequential GETs over one keep-alive connection with node:http (a lighter
// client than fetch).
//   pages.ts URL API_KEY REPS PATH WARMUP_PATH
// first warms this process and its connection up with 20 GETs of WARMUP_PATH (another route, so
// that the server's histogram of PATH's route counts only the timed requests), then GETs PATH
// REPS times and prints the times (ms, in order) as a JSON array.
import http from 'node:http';

const [url, apiKey, reps, path, warmupPath] = process.argv.slice(2);
if (!url || !apiKey || !reps || !path || !warmupPath)
  throw new Error('usage: pages.ts URL API_KEY REPS PATH WARMUP_PATH');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function timedGet(target: string): Promise<number> {
  const t0 = performance.now();
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      `${url}${target}`,
      { headers: { authorization: `Bearer ${apiKey}` }, agent },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  const ms = performance.now() - t0;
  if (status !== 200) throw new Error(`GET ${target}: HTTP ${status}: ${text.slice(0, 300)}`);
  return ms;
}

for (let i = 0; i < 20; i++) await timedGet(warmupPath);
const times: number[] = [];
for (let i = 0; i < Number(reps); i++) times.push(await timedGet(path));
agent.destroy();
process.stdout.write(`${JSON.stringify(times)}\n`);
