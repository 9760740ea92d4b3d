import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { BuildError, DEFAULT_EXTRACT_LIMITS } from './extract';
import { extractTarGz } from './extract-tar';

let work: string;
let outside: string;

beforeEach(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'slipway-extract-tar-'));
  outside = path.join(work, 'outside');
  await mkdir(outside);
});
afterEach(() => rm(work, { recursive: true, force: true }));

interface Entry {
  name: string;
  data?: string | Buffer;
  /** tar typeflag: '0' file (default), '5' folder, '2' symlink, '1' hard link, '3' character device, 'x' pax header. */
  type?: string;
  mode?: number;
  linkname?: string;
}

/** A ustar archive written by hand, so that tests can hold what no honest tool writes. */
function tar(entries: Entry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '');
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, 'utf8');
    h.write(((e.mode ?? 0o644) & 0o7777).toString(8).padStart(7, '0') + '\0', 100, 'ascii');
    h.write('0000000\0', 108, 'ascii');
    h.write('0000000\0', 116, 'ascii');
    h.write(data.length.toString(8).padStart(11, '0') + '\0', 124, 'ascii');
    h.write('00000000000\0', 136, 'ascii');
    h.write('        ', 148, 'ascii');
    h.write(e.type ?? '0', 156, 'ascii');
    if (e.linkname) h.write(e.linkname, 157, 100, 'utf8');
    h.write('ustar\0', 257, 'ascii');
    h.write('00', 263, 'ascii');
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

async function extract(archive: Buffer, limits = DEFAULT_EXTRACT_LIMITS) {
  const file = path.join(work, 'repo.tar.gz');
  await writeFile(file, archive);
  return extractTarGz(file, path.join(work, 'build', 'app'), limits);
}

async function failure(archive: Buffer, limits = DEFAULT_EXTRACT_LIMITS): Promise<string> {
  const e = await extract(archive, limits).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(BuildError);
  expect((e as BuildError).code).toBe('build_failed');
  return (e as BuildError).message;
}

const tree = async (dir: string) => (await readdir(dir, { recursive: true })).sort();

describe('extractTarGz', () => {
  it('extracts files and folders with their executable bit, and skips links', async () => {
    const r = await extract(
      gzipSync(
        tar([
          { name: 'top/', type: '5', mode: 0o755 },
          { name: 'top/server.js', data: 'console.log(1)' },
          { name: 'top/run.sh', data: '#!/bin/sh\n', mode: 0o755 },
          { name: 'top/passwd', type: '2', linkname: '/etc/passwd' },
          { name: 'top/hard', type: '1', linkname: 'top/server.js' },
        ]),
      ),
    );
    expect(r).toEqual({ files: 2, bytes: 14 + 10, skippedLinks: 2 });
    const dest = path.join(work, 'build', 'app');
    expect(await tree(dest)).toEqual(['top', 'top/run.sh', 'top/server.js']);
    expect((await stat(path.join(dest, 'top/run.sh'))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(dest, 'top/server.js'))).mode & 0o777).toBe(0o644);
  });

  it('extracts what `git archive` writes (pax headers, long names), under its top folder', async () => {
    const repo = path.join(work, 'repo');
    const long = `${'deep/'.repeat(30)}file-with-a-long-name.txt`;
    await mkdir(path.dirname(path.join(repo, long)), { recursive: true });
    await writeFile(path.join(repo, long), 'far down');
    await writeFile(path.join(repo, 'README'), 'hello');
    await symlink('/etc', path.join(repo, 'etc-link'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.email=a@b.c', '-c', 'user.name=t', 'commit', '-q', '-m', 'x');
    const archive = git('archive', '--format=tar.gz', '--prefix=acme-shop-1234567/', 'HEAD');
    const r = await extract(archive);
    expect(r).toMatchObject({ files: 2, skippedLinks: 1 });
    const dest = path.join(work, 'build', 'app', 'acme-shop-1234567');
    expect(await readFile(path.join(dest, long), 'utf8')).toBe('far down');
    await expect(lstat(path.join(dest, 'etc-link'))).rejects.toThrow();
  });

  it.each([
    ['/etc/passwd', 'is an absolute path'],
    ['../outside/evil.txt', 'contains ".."'],
    ['top/../../outside/evil.txt', 'contains ".."'],
    ['top\\..\\evil.txt', 'backslash'],
  ])('refuses the name %j before writing it', async (name, why) => {
    expect(await failure(gzipSync(tar([{ name: 'ok.txt', data: 'fine' }, { name, data: 'pwned' }])))).toContain(why);
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses a path hidden in a pax header', async () => {
    const record = (k: string, v: string) => {
      const body = ` ${k}=${v}\n`;
      let n = body.length + 1;
      while (`${n}${body}`.length !== n) n = `${n}${body}`.length;
      return `${n}${body}`;
    };
    const reason = await failure(gzipSync(tar([{ name: 'PaxHeader', type: 'x', data: record('path', '../outside/evil.txt') }, { name: 'innocent.txt', data: 'pwned' }])));
    expect(reason).toContain('contains ".."');
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses a device entry', async () => {
    expect(await failure(gzipSync(tar([{ name: 'null', type: '3' }])))).toContain('device or special file');
  });

  it('refuses a duplicate entry instead of overwriting, and a file where a folder is', async () => {
    expect(await failure(gzipSync(tar([{ name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }])))).toContain('twice');
    await rm(path.join(work, 'build'), { recursive: true, force: true });
    expect(await failure(gzipSync(tar([{ name: 'a', data: '1' }, { name: 'a/b.txt', data: '2' }])))).toMatch(/folder and a file|inside something that is a file/);
  });

  it('stops at the entry and total size limits', async () => {
    const many = Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, data: 'x' }));
    expect(await failure(gzipSync(tar(many)), { ...DEFAULT_EXTRACT_LIMITS, maxEntries: 4 })).toContain('more than 4 entries');
    await rm(path.join(work, 'build'), { recursive: true, force: true });
    const big = [{ name: 'a', data: Buffer.alloc(600_000, 'a') }, { name: 'b', data: Buffer.alloc(600_000, 'b') }];
    expect(await failure(gzipSync(tar(big)), { ...DEFAULT_EXTRACT_LIMITS, maxTotalBytes: 1_000_000 })).toContain('more than 1000000 bytes');
  });

  it('stops an archive bomb by its ratio, counted while inflating', async () => {
    const reason = await failure(gzipSync(tar([{ name: 'bomb.bin', data: Buffer.alloc(30_000_000) }])), { ...DEFAULT_EXTRACT_LIMITS, ratioFloorBytes: 1_000_000, maxRatio: 100 });
    expect(reason).toMatch(/expands more than 100 times/);
    expect((await stat(path.join(work, 'build', 'app', 'bomb.bin'))).size).toBeLessThan(10_000_000);
  });

  it('refuses damaged, truncated and empty archives', async () => {
    expect(await failure(Buffer.from('not gzip at all'))).toMatch(/damaged or truncated/);
    const whole = gzipSync(tar([{ name: 'a.txt', data: Buffer.alloc(50_000, 'q') }]));
    expect(await failure(whole.subarray(0, Math.floor(whole.length / 2)))).toMatch(/damaged or truncated|truncated/);
    const corrupt = tar([{ name: 'a.txt', data: 'x' }]);
    corrupt[0] = 'b'.charCodeAt(0);
    expect(await failure(gzipSync(corrupt))).toMatch(/checksum/);
    expect(await failure(gzipSync(tar([])))).toContain('no files');
  });
});
