// sipp as the callers of the `sip` case (bench/sip.ts): one sipp process places N concurrent
// inbound calls (`-l N -m N -r R`), signalling only. Each INVITE's SDP names the RTP port of its
// call in the peers' process (bench/sip-peer.ts), read from an injection file (`-inf`, one line per
// call, SEQUENTIAL), so Parley's RTP goes there and never to sipp. Each call stays up `holdMs`,
// then sipp hangs up with BYE.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onCleanup } from './lib.ts';

const SCENARIO = `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="parley bench caller">
  <send retrans="500">
    <![CDATA[
      INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: "Bench" <sip:+14155551234@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:+14155551234@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Type: application/sdp
      Content-Length: [len]

      v=0
      o=bench 53655765 2353687637 IN IP4 127.0.0.1
      s=-
      c=IN IP4 127.0.0.1
      t=0 0
      m=audio [field0] RTP/AVP 0 101
      a=rtpmap:0 PCMU/8000
      a=rtpmap:101 telephone-event/8000
      a=fmtp:101 0-15
      a=ptime:20
    ]]>
  </send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="183" optional="true"/>
  <recv response="200" rtd="true"/>
  <send>
    <![CDATA[
      ACK sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: "Bench" <sip:+14155551234@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: 1 ACK
      Contact: <sip:+14155551234@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Length: 0
    ]]>
  </send>
  <pause milliseconds="{{hold}}"/>
  <send retrans="500">
    <![CDATA[
      BYE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: "Bench" <sip:+14155551234@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: 2 BYE
      Contact: <sip:+14155551234@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Length: 0
    ]]>
  </send>
  <recv response="200" crlf="true"/>
</scenario>
`;

export interface SippCallers {
  /** sipp's exit: 0 when every call ran as written; what it printed last (and its error log). */
  done: Promise<{ code: number | null; out: string }>;
  kill(): void;
}

export function startSippCallers(options: {
  dir: string;
  /** Parley's SIP listener (host:port). */
  target: string;
  /** The number called (the Request-URI's user part). */
  number: string;
  /** sipp's own SIP port and its (unused) media port. */
  port: number;
  mediaPort: number;
  /** The RTP port of each call in the peers' process, in call order. */
  rtpPorts: number[];
  /** New calls per second. */
  rate: number;
  holdMs: number;
}): SippCallers {
  const { dir, rtpPorts } = options;
  const scenario = join(dir, 'bench-caller.xml');
  writeFileSync(scenario, SCENARIO.replace('{{hold}}', String(options.holdMs)));
  const fields = join(dir, 'ports.csv');
  writeFileSync(fields, `SEQUENTIAL\n${rtpPorts.map((p) => `${p};`).join('\n')}\n`);
  const calls = rtpPorts.length;
  const timeoutS = Math.ceil(options.holdMs / 1000 + calls / options.rate + 60);
  const args = [
    options.target,
    '-sf',
    scenario,
    '-inf',
    fields,
    '-s',
    options.number,
    '-i',
    '127.0.0.1',
    '-p',
    String(options.port),
    '-mi',
    '127.0.0.1',
    '-mp',
    String(options.mediaPort),
    '-l',
    String(calls),
    '-m',
    String(calls),
    '-r',
    String(options.rate),
    '-rp',
    '1000',
    '-timeout',
    `${timeoutS}s`,
    '-timeout_error',
    '-nostdin',
    '-trace_err',
  ];
  const child = spawn('sipp', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const done = new Promise<{ code: number | null; out: string }>((resolve) => {
    child.once('error', (err) => resolve({ code: -1, out: `sipp did not start: ${err.message}` }));
    child.once('exit', (code) => {
      // What went wrong, call by call (-trace_err), before the temp dir goes.
      if (code !== 0)
        for (const file of readdirSync(dir).filter((f) => f.endsWith('_errors.log')))
          out += `\n${file}:\n${readFileSync(join(dir, file), 'utf8').slice(-2000)}`;
      resolve({ code, out });
    });
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  onCleanup(async () => {
    kill();
    await done;
  });
  return { done, kill };
}
