import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DockerRuntime } from './docker.runtime';

/** A command run inside a container (argv, no shell of ours), its secrets in the environment. */
export interface StreamExecSpec {
  cmd: string[];
  env?: Record<string, string>;
  user?: string;
  /** Given up after this long (the stream is cut; the result says so). */
  timeoutMs: number;
}

export interface StreamExecResult {
  exitCode: number;
  /** The command's stderr (its first 16 KB). */
  stderr: string;
  /** Bytes of stdout that reached the sink. */
  bytes: number;
}

const STDERR_CAP = 16_384;

/**
 * Splits Docker's multiplexed exec stream (8-byte frame headers: stream, 0, 0, 0, big-endian size) into stdout, which
 * it passes on (with backpressure: a slow sink slows the engine's dump down rather than filling memory), and stderr,
 * which it keeps (capped) for the error message.
 */
export class ExecDemux extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private frameLeft = 0;
  private frameStream = 0;
  private readonly errParts: Buffer[] = [];
  private errBytes = 0;
  bytes = 0;

  constructor() {
    super({ highWaterMark: 1 << 20 });
  }

  get stderr(): string {
    return Buffer.concat(this.errParts).toString('utf8');
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (buf.length) {
      if (this.frameLeft === 0) {
        if (buf.length < 8) {
          this.pending = Buffer.from(buf);
          break;
        }
        this.frameStream = buf[0]!;
        this.frameLeft = buf.readUInt32BE(4);
        buf = buf.subarray(8);
        continue;
      }
      const part = buf.subarray(0, Math.min(this.frameLeft, buf.length));
      buf = buf.subarray(part.length);
      this.frameLeft -= part.length;
      if (this.frameStream === 2) {
        if (this.errBytes < STDERR_CAP) {
          this.errParts.push(Buffer.from(part.subarray(0, STDERR_CAP - this.errBytes)));
          this.errBytes += part.length;
        }
      } else if (this.frameStream === 1) {
        this.bytes += part.length;
        this.push(part);
      }
    }
    done();
  }
}

/**
 * Runs a command in a container and streams its stdout into `sink` (a file being written, a hash…), never whole in
 * memory. The exit code is read once the output ended; a sink that fails (a full disk) or the time running out
 * rejects with that error after the stream is cut.
 */
export async function execToSink(docker: DockerRuntime, containerId: string, spec: StreamExecSpec, sink: Writable): Promise<StreamExecResult> {
  const { stream, exitCode } = await docker.openExec(containerId, { cmd: spec.cmd, env: spec.env, user: spec.user, stdin: false });
  const demux = new ExecDemux();
  const signal = AbortSignal.timeout(spec.timeoutMs);
  try {
    await pipeline(stream, demux, sink, { signal });
  } catch (e) {
    stream.destroy();
    if (signal.aborted) throw new Error(`gave up after ${Math.round(spec.timeoutMs / 1000)} s`);
    throw e;
  }
  return { exitCode: await exitCode(), stderr: demux.stderr, bytes: demux.bytes };
}

/**
 * Runs a command in a container with `source` as its stdin (a backup file being loaded), its output kept (capped).
 * Resolves once the command's output ended, with its exit code.
 */
export async function execFromSource(docker: DockerRuntime, containerId: string, spec: StreamExecSpec, source: Readable): Promise<StreamExecResult & { stdout: string }> {
  const { stream, exitCode } = await docker.openExec(containerId, { cmd: spec.cmd, env: spec.env, user: spec.user, stdin: true });
  const demux = new ExecDemux();
  const out: Buffer[] = [];
  let outBytes = 0;
  demux.on('data', (b: Buffer) => {
    if (outBytes < STDERR_CAP) out.push(b);
    outBytes += b.length;
  });
  let sourceError: Error | null = null;
  let ended = false;
  const timer = setTimeout(() => stream.destroy(new Error(`gave up after ${Math.round(spec.timeoutMs / 1000)} s`)), spec.timeoutMs);
  try {
    // Done when the command's output ends (it exited), whether or not it read all of its input: a reader that stops
    // early (pg_restore --list reads the table of contents only) must not leave the feeding side waiting for room.
    const done = new Promise<void>((resolve, reject) => {
      demux.on('end', () => {
        ended = true;
        resolve();
      });
      stream.on('error', (e) => {
        if (!ended) reject(e);
      });
    });
    source.on('error', (e) => {
      sourceError = e;
      stream.destroy();
    });
    stream.pipe(demux);
    demux.resume();
    source.pipe(stream as unknown as Writable, { end: true });
    await done;
  } finally {
    clearTimeout(timer);
    source.unpipe(stream as unknown as Writable);
    source.destroy();
  }
  if (sourceError) throw sourceError;
  return { exitCode: await exitCode(), stderr: demux.stderr, bytes: outBytes, stdout: Buffer.concat(out).toString('utf8') };
}
