// The benchmarks' smallest web app: busybox `httpd` answering "tiny\n" on 8080, about 1 MB of memory per container, so
// that the platform's own cost per app shows (bench/density, bench/idle --apps).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { ensureTestImage, TEST_IMAGE } from '@slipway/testing/agent';

export const TINY_IMAGE = 'slipway-bench/tiny:1';

/** Builds TINY_IMAGE on this engine once (FROM the 1 MB busybox test image). */
export async function ensureTinyImage(docker: Docker): Promise<string> {
  if ((await docker.listImages({ filters: { reference: [TINY_IMAGE] } })).length) return TINY_IMAGE;
  await ensureTestImage(docker);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-tiny-'));
  try {
    await writeFile(path.join(dir, 'index.html'), 'tiny\n');
    await writeFile(path.join(dir, 'Dockerfile'), `FROM ${TEST_IMAGE}\nCOPY index.html /www/index.html\nCMD ["/bin/busybox", "httpd", "-f", "-p", "8080", "-h", "/www"]\n`);
    const stream = await docker.buildImage({ context: dir, src: ['Dockerfile', 'index.html'] }, { t: TINY_IMAGE });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => (err || out.find((o) => o.error) ? reject(err ?? new Error(out.find((o) => o.error)!.error)) : resolve())),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return TINY_IMAGE;
}

/** Runs `work` over `items`, `limit` at a time, in order of start. */
export async function pool<T, R>(items: T[], limit: number, work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!, i);
      }
    }),
  );
  return out;
}
