import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BuildError, checkName, DEFAULT_EXTRACT_LIMITS, extractZip } from './extract';
import { writeZip, type ZipEntry } from '@slipway/testing/zip';

let work: string;
let outside: string;

beforeEach(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'slipway-extract-'));
  outside = path.join(work, 'outside');
  await mkdir(outside);
});
afterEach(() => rm(work, { recursive: true, force: true }));

async function extract(entries: ZipEntry[] | Buffer, limits = DEFAULT_EXTRACT_LIMITS) {
  const zip = path.join(work, 'upload.zip');
  await writeFile(zip, Buffer.isBuffer(entries) ? entries : writeZip(entries));
  return extractZip(zip, path.join(work, 'build', 'app'), limits);
}

async function failure(entries: ZipEntry[] | Buffer, limits = DEFAULT_EXTRACT_LIMITS): Promise<string> {
  const e = await extract(entries, limits).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(BuildError);
  expect((e as BuildError).code).toBe('build_failed');
  return (e as BuildError).message;
}

async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

describe('extractZip', () => {
  it('extracts files and folders with their executable bit', async () => {
    const r = await extract([
      { name: 'app/' },
      { name: 'app/server.js', data: 'console.log(1)' },
      { name: 'run.sh', data: '#!/bin/sh\n', mode: 0o100755 },
      { name: './README', data: 'x', store: true },
    ]);
    expect(r).toEqual({ files: 3, bytes: 14 + 10 + 1 });
    const dest = path.join(work, 'build', 'app');
    expect(await tree(dest)).toEqual(['README', 'app', 'app/server.js', 'run.sh']);
    expect(await readFile(path.join(dest, 'app/server.js'), 'utf8')).toBe('console.log(1)');
    expect((await stat(path.join(dest, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(dest, 'README'))).mode & 0o777).toBe(0o644);
  });

  it('extracts what the zip CLI writes', async () => {
    const src = path.join(work, 'src');
    await mkdir(path.join(src, 'lib'), { recursive: true });
    await writeFile(path.join(src, 'lib', 'a.txt'), 'hello');
    execFileSync('zip', ['-r', '-q', path.join(work, 'cli.zip'), '.'], { cwd: src });
    await extractZip(path.join(work, 'cli.zip'), path.join(work, 'out'));
    expect(await readFile(path.join(work, 'out', 'lib', 'a.txt'), 'utf8')).toBe('hello');
  });

  it.each([
    ['/etc/passwd', 'is an absolute path'],
    ['../outside/evil.txt', 'contains ".."'],
    ['app/../../outside/evil.txt', 'contains ".."'],
    ['app\\..\\..\\evil.txt', 'backslash'],
    ['C:/Windows/evil.txt', 'drive letter'],
    ['evil\u0000.txt', 'control character'],
  ])('refuses the name %j', async (name, why) => {
    expect(await failure([{ name: 'ok.txt', data: 'fine' }, { name, data: 'pwned' }])).toContain(why);
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(path.dirname(work))).not.toContain('evil.txt');
  });

  it('refuses a symlink entry and writes no link', async () => {
    const reason = await failure([{ name: 'link', data: '/etc/passwd', mode: 0o120777 }]);
    expect(reason).toMatch(/"link" is a symbolic link/);
    expect(await tree(path.join(work, 'build', 'app'))).toEqual([]);
  });

  it('refuses a symlink written by zip --symlinks', async () => {
    const src = path.join(work, 'src');
    await mkdir(src);
    await writeFile(path.join(src, 'a.txt'), 'a');
    await symlink('/etc', path.join(src, 'etc'));
    execFileSync('zip', ['-q', '--symlinks', path.join(work, 'links.zip'), 'a.txt', 'etc'], { cwd: src });
    const e = await extractZip(path.join(work, 'links.zip'), path.join(work, 'out')).catch((err: Error) => err);
    expect(e).toBeInstanceOf(BuildError);
    expect((e as Error).message).toContain('symbolic link');
  });

  it('refuses a device entry', async () => {
    expect(await failure([{ name: 'dev', mode: 0o020644, store: true }])).toContain('device or special file');
  });

  it('refuses more entries than the limit, from the central directory already', async () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, data: 'x' }));
    expect(await failure(entries, { ...DEFAULT_EXTRACT_LIMITS, maxEntries: 4 })).toContain('at most 4');
  });

  it('stops a zip bomb by its ratio, counted while inflating', async () => {
    const zeros = Buffer.alloc(20_000_000);
    const reason = await failure([{ name: 'bomb.bin', data: zeros }], { ...DEFAULT_EXTRACT_LIMITS, ratioFloorBytes: 1_000_000, maxRatio: 100 });
    expect(reason).toMatch(/"bomb.bin" expands more than 100 times.*zip bomb/);
    // Aborted early: far less than the 20 MB were written.
    const size = (await stat(path.join(work, 'build', 'app', 'bomb.bin'))).size;
    expect(size).toBeLessThan(5_000_000);
  });

  it('stops at the total size limit, whatever the headers claim', async () => {
    const data = Buffer.alloc(600_000, 'a');
    const reason = await failure(
      [
        { name: 'a', data },
        { name: 'b', data },
      ],
      { ...DEFAULT_EXTRACT_LIMITS, maxTotalBytes: 1_000_000 },
    );
    expect(reason).toContain('more than 1000000 bytes');
  });

  it('does not trust a header that understates the size', async () => {
    const zip = writeZip([{ name: 'liar.txt', data: Buffer.alloc(100_000, 'z') }]);
    // Patch the central directory's uncompressed size down to 10 bytes.
    const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(10, cd + 24);
    expect(await failure(zip)).toMatch(/damaged or truncated/);
  });

  it('refuses an entry whose bytes fail their CRC-32 check (a byte flipped in a stored entry by hand)', async () => {
    const src = path.join(work, 'src');
    await mkdir(src);
    await writeFile(path.join(src, 'index.html'), '<h1>hello from a zip</h1>\n'.repeat(20));
    execFileSync('zip', ['-q', '-0', path.join(work, 'crc.zip'), 'index.html'], { cwd: src });
    const zip = await readFile(path.join(work, 'crc.zip'));
    const at = zip.indexOf('hello from a zip');
    zip[at] = 'j'.charCodeAt(0); // "jello": same size, other bytes
    const reason = await failure(zip);
    expect(reason).toMatch(/^The \.zip is damaged: the contents of "index\.html" fail their CRC-32 check \(the archive says [0-9a-f]{8}, the bytes give [0-9a-f]{8}\); make the \.zip again and upload it$/);
  });

  it('refuses a deflated entry whose CRC-32 in the central directory does not match', async () => {
    const zip = writeZip([{ name: 'a.txt', data: Buffer.alloc(10_000, 'a') }]);
    const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE((zip.readUInt32LE(cd + 16) ^ 1) >>> 0, cd + 16);
    expect(await failure(zip)).toContain('"a.txt" fail their CRC-32 check');
  });

  it('refuses a duplicate entry instead of overwriting', async () => {
    expect(await failure([{ name: 'a.txt', data: '1' }, { name: 'a.txt', data: '2' }])).toContain('twice');
  });

  it('refuses a file that is not a zip', async () => {
    expect(await failure(Buffer.from('this is not a zip file at all, just text\n'.repeat(10)))).toMatch(/not a valid \.zip/);
  });

  it('refuses a truncated zip', async () => {
    const zip = writeZip([{ name: 'a.txt', data: Buffer.alloc(50_000, 'q') }]);
    expect(await failure(zip.subarray(0, Math.floor(zip.length / 2)))).toMatch(/not a valid \.zip|damaged or truncated/);
  });

  it('refuses an empty zip', async () => {
    expect(await failure([])).toContain('no files');
  });
});

describe('checkName', () => {
  it('drops "." and empty segments', () => {
    expect(checkName('./a//b/./c.txt')).toEqual(['a', 'b', 'c.txt']);
    expect(checkName('dir/')).toEqual(['dir']);
  });
  it('accepts names that only look odd', () => {
    expect(checkName('..foo/bar..')).toEqual(['..foo', 'bar..']);
    expect(checkName('ünïcode/файл.txt')).toEqual(['ünïcode', 'файл.txt']);
  });
});
