// Sealed multipart upload to an S3-compatible server vs. writing the same bytes to a local file (issue 33).
// npx tsx bench/offsite/run.ts [--mb 1024] [--part-mib 8] [--queue 2]
// s3rver runs in a child process so that this process's resident memory is the uploader's alone (sampled every 10 ms).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Upload } from '@aws-sdk/lib-storage';
import { openSealed, s3Client, uploadSealed, type S3Target, type UploadTimings } from '@slipway/offsite';
import { startS3rverChild } from '../lib/s3rver';

const arg = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const mb = arg('--mb', 1024);
const partMib = arg('--part-mib', 8);
const queueSize = arg('--queue', 2);
const PIECE = 64 * 1024;

/** A dump-like stream: `mb` MiB of mixed bytes (a random block repeated with a counter: incompressible enough). */
// One block for every run: the local file and the upload must see the same bytes (their SHA-256 is compared).
const block = randomBytes(PIECE);

function source(): Readable {
  let i = 0;
  return new Readable({
    read() {
      if (i >= mb * 16) return void this.push(null);
      const piece = Buffer.from(block);
      piece.writeUInt32BE(i, 0);
      i += 1;
      this.push(piece);
    },
  });
}

async function measure<T>(what: () => Promise<T>): Promise<{ result: T; seconds: number; rssGrowthMb: number }> {
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const started = process.hrtime.bigint();
  try {
    const result = await what();
    return { result, seconds: Number(process.hrtime.bigint() - started) / 1e9, rssGrowthMb: (peak - before) / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'slipway-offsite-bench-'));
  const s3 = await startS3rverChild(join(dir, 's3'), 'bench');
  const target: S3Target = { endpoint: s3.endpoint, region: 'us-east-1', bucket: 'bench', prefix: 'b/', pathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const key = randomBytes(32);
  const bytes = mb * 1024 * 1024;
  const rate = (s: number) => (bytes / 1e6 / s).toFixed(0);
  try {
    const local = await measure(async () => {
      const fh = await open(join(dir, 'local.dump'), 'w');
      const hash = createHash('sha256');
      await pipeline(source(), new Writable({ write: (c: Buffer, _e, cb) => void (hash.update(c), fh.write(c).then(() => cb(), cb)) }));
      await fh.sync();
      await fh.close();
      return hash.digest('hex');
    });
    // The S3 double alone: the same bytes as a multipart upload (same parts and queue), no sealing, no hashing, no read back.
    const double = await measure(async () => {
      const client = s3Client(target);
      await new Upload({ client, params: { Bucket: 'bench', Key: 'b/plain', Body: source() }, partSize: partMib * 1024 * 1024, queueSize }).done();
      client.destroy();
    });
    const timings: UploadTimings = {};
    const up = await measure(() => uploadSealed(target, 'bench.swbk', source(), key, { partBytes: partMib * 1024 * 1024, queueSize, timings }));
    const down = await measure(async () => {
      let n = 0;
      await pipeline(await openSealed(target, up.result.key, key, up.result.sha256), new Writable({ write: (c: Buffer, _e, cb) => void ((n += c.length), cb()) }));
      return n;
    });
    console.log(`offsite benchmark: ${mb} MiB synthetic dump, s3rver (child process) on loopback, on ${cpus().length} cores (load average ${loadavg()[0]!.toFixed(1)})`);
    console.log(`  baseline  local file (SHA-256, fsync)                         ${local.seconds.toFixed(1)} s  ${rate(local.seconds)} MB/s   RSS +${local.rssGrowthMb.toFixed(1)} MB`);
    console.log(`  double    plain multipart upload alone (${partMib} MiB × ${queueSize})     ${double.seconds.toFixed(1)} s  ${rate(double.seconds)} MB/s   RSS +${double.rssGrowthMb.toFixed(1)} MB`);
    console.log(`  upload    seal + multipart (${partMib} MiB × ${queueSize}) + full read-back      ${up.seconds.toFixed(1)} s  ${rate(up.seconds)} MB/s   RSS +${up.rssGrowthMb.toFixed(1)} MB   object ${up.result.sizeBytes} B, plain SHA-256 ${up.result.plainSha256 === local.result ? 'matches the local file' : 'DIFFERS'}`);
    console.log(`            of which: parts sent ${((timings.partsMs ?? 0) / 1000).toFixed(1)} s, the storage assembling them ${(((timings.uploadMs ?? 0) - (timings.partsMs ?? 0)) / 1000).toFixed(1)} s, read back ${((timings.readBackMs ?? 0) / 1000).toFixed(1)} s, manifest ${((timings.manifestMs ?? 0) / 1000).toFixed(1)} s`);
    console.log(`  restore   download + checksum + open                          ${down.seconds.toFixed(1)} s  ${rate(down.seconds)} MB/s   RSS +${down.rssGrowthMb.toFixed(1)} MB   ${down.result === bytes ? 'all bytes back' : `ONLY ${down.result} bytes`}`);
    console.log(`targets: upload ≥ 50 MB/s (${rate(up.seconds)}): ${Number(rate(up.seconds)) >= 50 ? 'met' : 'NOT met'}; RSS growth ≤ 64 MB (${up.rssGrowthMb.toFixed(1)}): ${up.rssGrowthMb <= 64 ? 'met' : 'NOT met'}`);
  } finally {
    s3.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
