// The sealed upload's multipart side, measured (issue 33, docs/decisions/0036 "Parts from a pool"): lib-storage's
// `Upload` against `MultipartWriter` (part buffers from a pool, over the SDK's multipart commands), the same sealed
// bytes (SealStream with its hashes, PartChecksums) to the same test S3 server in the same run, each try in a fresh
// process with production's --max-semi-space-size=4 so that its resident memory is its own.
//   npx tsx bench/backups/parts.ts [--mb 512] [--rounds 2]
// The dump is one 64 KiB block over and over (the source allocates nothing): what memory grows is the uploader's.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { Upload } from '@aws-sdk/lib-storage';
import { MultipartWriter, PartChecksums, s3Client, SealStream, DEFAULT_CHUNK_BYTES, type S3Target } from '@slipway/offsite';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '512' }, rounds: { type: 'string', default: '2' }, child: { type: 'string' }, endpoint: { type: 'string' } } });
const MiB = 1024 * 1024;
const PART = 8 * MiB;
const QUEUE = 2;
type Variant = 'lib-storage' | 'pool';
interface Figures {
  variant: Variant;
  seconds: number;
  cpuSeconds: number;
  rssGrowthMb: number;
  arrayBuffersPeakMb: number;
}

/** One upload in this process (a child): the figures as one JSON line. */
async function child(variant: Variant, endpoint: string, mb: number): Promise<void> {
  const target: S3Target = { endpoint, region: 'us-east-1', bucket: 'bench', prefix: '', pathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const block = randomBytes(64 * 1024);
  let sent = 0;
  const source = new Readable({
    highWaterMark: MiB,
    read() {
      this.push(sent++ < mb * 16 ? block : null);
    },
  });
  const client = s3Client(target);
  const key = `parts-${variant}`;
  new PartChecksums(client, key);
  const seal = new SealStream(randomBytes(32), DEFAULT_CHUNK_BYTES, { measure: true });
  const before = process.memoryUsage.rss();
  let rss = before;
  let arrayBuffers = 0;
  const timer = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage.rss());
    arrayBuffers = Math.max(arrayBuffers, process.memoryUsage().arrayBuffers);
  }, 10);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  if (variant === 'pool') {
    const writer = new MultipartWriter(client, { bucket: 'bench', key, contentType: 'application/octet-stream', partBytes: PART, queueSize: QUEUE, checksums: true, explain: (e) => e as Error });
    await pipeline(source, seal, writer);
  } else {
    const upload = new Upload({ client, params: { Bucket: 'bench', Key: key, Body: seal, ContentType: 'application/octet-stream', ChecksumAlgorithm: 'SHA256' }, partSize: PART, queueSize: QUEUE, leavePartsOnError: false });
    await Promise.all([pipeline(source, seal), upload.done()]);
  }
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  client.destroy();
  const figures: Figures = { variant, seconds, cpuSeconds: (used.user + used.system) / 1e6, rssGrowthMb: (rss - before) / 1e6, arrayBuffersPeakMb: arrayBuffers / 1e6 };
  console.log(JSON.stringify(figures));
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd: path.resolve(__dirname, '../..') });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

async function main(): Promise<void> {
  const mb = Number(values.mb);
  if (values.child) return child(values.child as Variant, values.endpoint!, mb);
  const storage = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'test-s3.ts'), 'bench', 'keep'], { stdio: ['ignore', 'pipe', 'inherit'], cwd: path.resolve(__dirname, '../..') });
  const endpoint = await new Promise<string>((resolve) => createInterface({ input: storage.stdout }).once('line', resolve));
  try {
    console.log(`sealed upload's parts: ${mb} MiB, ${PART / MiB} MiB parts × ${QUEUE} in flight, to the test S3 server (a process of its own), each try a fresh process, on ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)}`);
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const variant of ['lib-storage', 'pool'] as const) {
        const line = await run(['--max-semi-space-size=4', '--import', 'tsx', __filename, '--child', variant, '--endpoint', endpoint, '--mb', String(mb)]);
        const f = JSON.parse(line.trim().split('\n').pop()!) as Figures;
        console.log(
          `  ${variant.padEnd(11)} ${f.seconds.toFixed(1).padStart(5)} s  ${((mb * MiB) / 1e6 / f.seconds).toFixed(0).padStart(4)} MB/s  cpu ${f.cpuSeconds.toFixed(2)} s  RSS +${f.rssGrowthMb.toFixed(1)} MB  array buffers at most ${f.arrayBuffersPeakMb.toFixed(0)} MB`,
        );
      }
    }
  } finally {
    storage.kill('SIGTERM');
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
