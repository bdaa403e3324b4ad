// Benchmark receiver for case `webhooks`: a plain node:http server that reads each POST body and
// answers 200 `{}`. Requests carrying `webhook-signature` are verified with the `standardwebhooks`
// library against BENCH_WEBHOOK_SECRET (as an integrator's server would). `GET /stats` answers
// the counts, `POST /reset` zeroes them. HOST and PORT pick the address; prints `LISTENING <url>`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const secret = process.env.BENCH_WEBHOOK_SECRET;
if (!secret) throw new Error('BENCH_WEBHOOK_SECRET is not set');
const wh = new Webhook(secret);
let stats = { received: 0, signed: 0, verified: 0, rejected: 0 };

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    stats = { received: 0, signed: 0, verified: 0, rejected: 0 };
    res.writeHead(200).end('{}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    stats.received++;
    if (req.headers['webhook-signature']) {
      stats.signed++;
      try {
        wh.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
        stats.verified++;
      } catch {
        stats.rejected++;
        res.writeHead(401).end('{}');
        return;
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  process.stdout.write(`LISTENING http://${address}:${port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
