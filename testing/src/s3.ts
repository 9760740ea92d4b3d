// An S3-compatible server for tests (issue 33): s3rver speaks the real protocol over HTTP on a free loopback port.
// What it checks: the access key id (an unknown one is 403 InvalidAccessKeyId) and buckets (NoSuchBucket); what it
// does not: SigV4 signatures (any secret key is accepted for a known key id). Its only key pair is S3RVER/S3RVER.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export const S3RVER_ACCESS_KEY_ID = 'S3RVER';
export const S3RVER_SECRET_KEY = 'S3RVER';

export interface TestS3 {
  /** `http://127.0.0.1:<port>` (use path-style addressing). */
  endpoint: string;
  /** The folder s3rver keeps buckets and objects in. */
  directory: string;
  /** Every object's bytes in `bucket` (the s3rver store: `<bucket>/<key>._S3rver_object`), by key. */
  objects(bucket: string): Promise<Map<string, Buffer>>;
  close(): Promise<void>;
}

/** `host`: the address it listens on (default 127.0.0.1; a fleet's servers reach the bridge address, FLEET_HOST_ADDRESS). */
export async function startTestS3(options: { buckets?: string[]; host?: string } = {}): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'slipway-s3-'));
  const server = new S3rver({
    address: options.host ?? '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    directory,
    objects: (bucket) => readObjects(join(directory, bucket)),
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const OBJECT_SUFFIX = '._S3rver_object';

async function readObjects(root: string): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  for (const entry of entries) {
    const path = join(root, entry);
    if (entry.endsWith(OBJECT_SUFFIX) && (await stat(path)).isFile()) found.set(entry.slice(0, -OBJECT_SUFFIX.length), await readFile(path));
  }
  return found;
}

export interface StoppingS3 {
  /** `http://127.0.0.1:<port>`: the S3 server behind, until it stops. */
  endpoint: string;
  /** Request bytes that went through so far. */
  passed(): number;
  /** Resolves once the server stopped (connections cut, the port refuses). */
  stopped: Promise<void>;
  close(): Promise<void>;
}

/**
 * The S3 server `target` (an endpoint of startTestS3) behind a TCP relay that stops — every connection cut, the port
 * closed so that retries are refused — once `stopAfterBytes` of requests went through: a storage server that goes
 * away in the middle of an upload.
 */
export async function startStoppingS3(target: string, stopAfterBytes: number): Promise<StoppingS3> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let passed = 0;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const server = createServer((client) => {
    const back = connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(back);
    client.on('data', (b: Buffer) => {
      passed += b.length;
      if (passed < stopAfterBytes) return;
      server.close();
      for (const s of sockets) s.destroy();
      stop();
    });
    client.pipe(back).pipe(client);
    for (const s of [client, back]) {
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        (s === client ? back : client).destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    passed: () => passed,
    stopped,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
