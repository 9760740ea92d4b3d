// The project-folder operations against a real folder on disk, with real hostile symlinks made the way an app
// could make them inside its folder. Every refusal is checked on disk too: the files outside are not changed, not
// replaced, and their content never comes back.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '@slipway/core';
import { ProjectFiles, insideTarget, type WriteMessage } from './files.service';
import { silentLogger } from '@slipway/testing/logger';

const SECRET = `outside-secret-${randomUUID()}`;

async function* send(data: Buffer | string, commit = true): AsyncGenerator<WriteMessage> {
  const buf = Buffer.from(data);
  for (let off = 0; off < buf.length; off += 4096) yield { data: buf.subarray(off, off + 4096) };
  if (commit) yield { commit: { size: buf.length } };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
};

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts).toString();
}

/** What `p` settles to: its value, the AppError's code, or 'other'. */
const outcomeOf = (p: Promise<string>) => p.then((v) => v, (e: unknown) => (e instanceof AppError ? e.code : 'other'));
/** A read that answered the note's content counts as 'ok'; anything else is its code (or a leaked content). */
const readOutcome = (read: string) => (read === 'note' ? 'ok' : read);

/** Every file under `dir` (relative path → content or `<dir>`/`-> target`), to compare before and after. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(d: string, rel: string) {
    for (const name of (await readdir(d)).sort()) {
      const p = path.join(d, name);
      const st = await lstat(p);
      const key = rel ? `${rel}/${name}` : name;
      if (st.isDirectory()) {
        out[key] = `<dir ${st.mode.toString(8)}>`;
        await walk(p, key);
      } else if (st.isSymbolicLink()) out[key] = '<link>';
      else out[key] = `${(await readFile(p)).toString()} ${st.mode.toString(8)} ${st.mtimeMs}`;
    }
  }
  await walk(dir, '');
  return out;
}

describe('project folders on disk (ProjectFiles)', () => {
  let base: string;
  let volumes: string;
  let outside: string;
  let files: ProjectFiles;
  let appId: string;
  let root: string;
  let etcBefore: string;

  beforeAll(async () => {
    etcBefore = await readFile('/etc/hostname', 'utf8').catch(() => '');
  });

  beforeEach(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'slipway-files-'));
    volumes = path.join(base, 'data', 'volumes');
    outside = path.join(base, 'outside');
    await mkdir(path.join(outside, 'dir'), { recursive: true });
    await writeFile(path.join(outside, 'secret.txt'), SECRET);
    await writeFile(path.join(outside, 'dir', 'file.txt'), SECRET);
    // volumes/.meta: the rollout's metadata, beside (never inside) the app folders.
    await mkdir(path.join(volumes, '.meta'), { recursive: true });
    await writeFile(path.join(volumes, '.meta', 'state.json'), SECRET);
    appId = randomUUID();
    root = path.join(volumes, appId);
    await mkdir(path.join(root, 'sub', 'deeper'), { recursive: true });
    await writeFile(path.join(root, 'hello.txt'), 'hello');
    await writeFile(path.join(root, 'sub', 'note.txt'), 'note');
    // What a hostile app can leave in its folder.
    await symlink('/etc', path.join(root, 'etc'));
    await symlink(outside, path.join(root, 'abs'));
    await symlink('../../../outside', path.join(root, 'escape'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    await symlink('../../../../outside/secret.txt', path.join(root, 'sub', 'secret-rel'));
    await symlink('../../../../outside', path.join(root, 'sub', 'up-out'));
    await symlink('../.meta', path.join(root, 'meta'));
    await symlink('loop', path.join(root, 'loop'));
    // Links that stay inside are followed.
    await symlink('sub', path.join(root, 'inside'));
    await symlink('../hello.txt', path.join(root, 'sub', 'hello-link'));
    await symlink('..', path.join(root, 'sub', 'parent'));
    files = new ProjectFiles({ volumesDir: volumes, maxFileBytes: 1024 * 1024, logger: silentLogger });
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const seg = (p: string) => (p === '' ? [] : p.split('/'));

  describe('hostile paths: every operation refuses, nothing outside is read or changed', () => {
    const escaping = [
      'etc',
      'etc/hostname',
      'etc/passwd',
      'abs',
      'abs/secret.txt',
      'abs/dir',
      'abs/dir/file.txt',
      'escape',
      'escape/secret.txt',
      'escape/dir/file.txt',
      'secret-link',
      'sub/secret-rel',
      'sub/up-out/secret.txt',
      'sub/up-out/dir',
      'inside/up-out/secret.txt',
      'sub/parent/escape/secret.txt',
      'meta',
      'meta/state.json',
      'loop',
      'loop/x',
    ];
    // Rename and delete act on a final symlink itself (tested below), so their battery ends below a link.
    const throughLinks = escaping.filter((p) => p.includes('/') && p !== 'sub/secret-rel');
    let before: Record<string, string>;
    let metaBefore: Record<string, string>;

    beforeEach(async () => {
      before = await snapshot(outside);
      metaBefore = await snapshot(path.join(volumes, '.meta'));
    });

    afterEach(async () => {
      expect(await snapshot(outside)).toEqual(before);
      expect(await snapshot(path.join(volumes, '.meta'))).toEqual(metaBefore);
      expect(await readFile('/etc/hostname', 'utf8').catch(() => '')).toBe(etcBefore);
    });

    it.each(escaping)('list %s', async (p) => {
      // A final link is followed for a listing, so one that leads out is refused like a link in the middle.
      expect(await codeOf(files.list(appId, seg(p), 1000))).toBe('invalid_path');
    });

    it.each(escaping)('read %s', async (p) => {
      expect(await outcomeOf(files.read(appId, seg(p)).then((f) => readAll(f.stream)))).toBe('invalid_path');
    });

    it.each(escaping)('write %s', async (p) => {
      expect(await codeOf(files.write(appId, seg(p), send('pwned')))).toBe('invalid_path');
    });

    it.each(escaping.filter((p) => p.includes('/')))('write below %s', async (p) => {
      expect(await codeOf(files.write(appId, [...seg(p), 'new.txt'], send('pwned')))).toBe('invalid_path');
    });

    it.each(throughLinks)('rename from %s', async (p) => {
      expect(await codeOf(files.rename(appId, seg(p), ['stolen']))).toBe('invalid_path');
    });

    it.each(escaping)('rename into %s/x', async (p) => {
      expect(await codeOf(files.rename(appId, ['hello.txt'], [...seg(p), 'x']))).toBe('invalid_path');
      expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello');
    });

    it.each(throughLinks)('delete %s', async (p) => {
      expect(await codeOf(files.delete(appId, seg(p), true))).toBe('invalid_path');
      expect(await codeOf(files.delete(appId, seg(p), false))).toBe('invalid_path');
    });

    it('delete of a final symlink removes the link, never its target', async () => {
      for (const link of ['etc', 'abs', 'escape', 'secret-link', 'meta', 'sub/secret-rel']) {
        await files.delete(appId, link.split('/'), true);
        await expect(lstat(path.join(root, link))).rejects.toThrow();
      }
    });

    it('rename of a final symlink moves the link, never its target', async () => {
      await files.rename(appId, ['abs'], ['moved', 'abs']);
      expect((await lstat(path.join(root, 'moved', 'abs'))).isSymbolicLink()).toBe(true);
    });

    it('a write through a symlink swapped in the middle of the path (race) never lands outside', async () => {
      // Another process swaps `sub` between a real folder and a link out of the folder as fast as it can, while
      // writes and reads go through `sub/...`: each either works inside the folder or is refused.
      await writeFile(path.join(outside, 'note.txt'), SECRET);
      before = await snapshot(outside);
      await symlink('../../../outside', path.join(root, 'sub.link'));
      const swapper = swapLoop(root);
      try {
        const results = new Set<string>();
        for (let i = 0; i < 150; i++) {
          results.add(await codeOf(files.write(appId, ['sub', `new-${i}.txt`], send('data'))));
          const read = await outcomeOf(files.read(appId, ['sub', 'note.txt']).then((f) => readAll(f.stream)));
          expect(read).not.toContain(SECRET);
          results.add(readOutcome(read));
          const listed = await outcomeOf(files.list(appId, ['sub'], 1000).then((l) => l.entries.map((e) => e.name).join(',')));
          expect(listed).not.toContain('secret.txt');
        }
        for (const r of results) expect(['ok', 'invalid_path', 'not_found', 'not_a_folder']).toContain(r);
      } finally {
        swapper.kill('SIGKILL');
        await new Promise((r) => swapper.once('exit', r));
      }
    });
  });

  describe('what works inside the folder', () => {
    it('lists a folder sorted by name with type, size, date and octal mode', async () => {
      const listing = await files.list(appId, [], 1000);
      const names = listing.entries.map((e) => e.name);
      expect(names).toEqual([...names].sort());
      expect(listing.entries.find((e) => e.name === 'hello.txt')).toEqual(
        expect.objectContaining({ type: 'file', size: 5, mode: expect.stringMatching(/^0[0-7]{3}$/) }),
      );
      expect(listing.entries.find((e) => e.name === 'sub')?.type).toBe('directory');
      expect(listing.entries.find((e) => e.name === 'etc')?.type).toBe('symlink');
      expect(listing.truncated).toBe(false);
    });

    it('follows symlinks that stay inside the folder', async () => {
      expect((await files.list(appId, ['inside'], 1000)).entries.map((e) => e.name)).toContain('note.txt');
      expect(await readAll((await files.read(appId, ['sub', 'hello-link'])).stream)).toBe('hello');
      expect(await readAll((await files.read(appId, ['sub', 'parent', 'sub', 'note.txt'])).stream)).toBe('note');
      await files.write(appId, ['inside', 'via-link.txt'], send('x'));
      expect(await readFile(path.join(root, 'sub', 'via-link.txt'), 'utf8')).toBe('x');
    });

    it('lists at most the limit and says the rest was cut', async () => {
      await mkdir(path.join(root, 'many'));
      await Promise.all(Array.from({ length: 1005 }, (_, i) => writeFile(path.join(root, 'many', `f${String(i).padStart(4, '0')}`), '')));
      const listing = await files.list(appId, ['many'], 1000);
      expect(listing.entries).toHaveLength(1000);
      expect(listing.truncated).toBe(true);
      expect(listing.entries[0]!.name).toBe('f0000');
    });

    it('lists a missing folder of an app as empty (and makes it)', async () => {
      const fresh = randomUUID();
      expect(await files.list(fresh, [], 1000)).toEqual({ entries: [], truncated: false });
      expect((await stat(path.join(volumes, fresh))).isDirectory()).toBe(true);
    });

    it('refuses app ids that are not canonical UUIDs', async () => {
      for (const id of ['.meta', '..', 'x', appId.toUpperCase(), `${appId}/..`]) expect(await codeOf(files.list(id, [], 10))).toBe('validation_failed');
    });

    it('answers not_found, not_a_file and not_a_folder', async () => {
      expect(await codeOf(files.read(appId, ['nope.txt']))).toBe('not_found');
      expect(await codeOf(files.read(appId, ['sub']))).toBe('not_a_file');
      expect(await codeOf(files.list(appId, ['hello.txt'], 10))).toBe('not_a_folder');
      expect(await codeOf(files.list(appId, ['nope'], 10))).toBe('not_found');
      expect(await codeOf(files.write(appId, ['sub'], send('x')))).toBe('not_a_file');
      expect(await codeOf(files.write(appId, ['hello.txt', 'x'], send('x')))).toBe('not_a_folder');
    });

    it('writes through a temporary file, creates parents, keeps the mode of the file it replaces', async () => {
      await files.write(appId, ['a', 'b', 'c.txt'], send('new file'));
      expect(await readFile(path.join(root, 'a', 'b', 'c.txt'), 'utf8')).toBe('new file');
      expect((await stat(path.join(root, 'a', 'b', 'c.txt'))).mode & 0o777).toBe(0o644);
      await writeFile(path.join(root, 'run.sh'), 'old', { mode: 0o755 });
      await files.write(appId, ['run.sh'], send('#!/bin/sh\necho new'));
      expect((await stat(path.join(root, 'run.sh'))).mode & 0o777).toBe(0o755);
      expect((await readdir(root)).filter((n) => n.includes('slipway-upload'))).toEqual([]);
    });

    it('an upload that stops before its commit leaves the old file and no temporary file', async () => {
      expect(await codeOf(files.write(appId, ['hello.txt'], send('x'.repeat(100_000), false)))).toBe('validation_failed');
      expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello');
      expect((await readdir(root)).filter((n) => n.includes('slipway-upload'))).toEqual([]);
    });

    it('an upload past the limit is refused and leaves no temporary file', async () => {
      expect(await codeOf(files.write(appId, ['hello.txt'], send(Buffer.alloc(1024 * 1024 + 1))))).toBe('payload_too_large');
      expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello');
      expect((await readdir(root)).filter((n) => n.includes('slipway-upload'))).toEqual([]);
    });

    it('gives what it writes to the owner of the folder (the user the app runs as)', async () => {
      await chown(root, 4321, 4322);
      await files.write(appId, ['owned', 'deep', 'f.txt'], send('x'));
      for (const p of ['owned', 'owned/deep', 'owned/deep/f.txt']) {
        const st = await stat(path.join(root, p));
        expect([st.uid, st.gid]).toEqual([4321, 4322]);
      }
      await files.rename(appId, ['hello.txt'], ['made', 'hello.txt']);
      expect((await stat(path.join(root, 'made'))).uid).toBe(4321);
    });

    it('renames and moves; the destination must not exist', async () => {
      await files.rename(appId, ['hello.txt'], ['moved', 'hi.txt']);
      expect(await readFile(path.join(root, 'moved', 'hi.txt'), 'utf8')).toBe('hello');
      expect(await codeOf(files.rename(appId, ['moved', 'hi.txt'], ['sub', 'note.txt']))).toBe('destination_exists');
      expect(await codeOf(files.rename(appId, ['nope'], ['x']))).toBe('not_found');
      expect(await codeOf(files.rename(appId, ['sub'], ['sub', 'deeper', 'sub']))).toBe('invalid_path');
    });

    it('deletes files, empty folders, and full folders only with recursive', async () => {
      expect(await codeOf(files.delete(appId, ['sub'], false))).toBe('folder_not_empty');
      await files.delete(appId, ['sub', 'deeper'], false);
      await files.delete(appId, ['hello.txt'], false);
      await files.delete(appId, ['sub'], true);
      expect((await readdir(root)).sort()).toEqual(['abs', 'escape', 'etc', 'inside', 'loop', 'meta', 'secret-link']);
      expect(await codeOf(files.delete(appId, ['sub'], true))).toBe('not_found');
    });
  });

  it('symlink targets are resolved relative to the link, inside the folder only', () => {
    expect(insideTarget(['a', 'b'], '../c')).toEqual(['a', 'c']);
    expect(insideTarget(['a'], './x/./y')).toEqual(['a', 'x', 'y']);
    expect(insideTarget(['a'], '..')).toEqual([]);
    expect(() => insideTarget(['a'], '../..')).toThrow(AppError);
    expect(() => insideTarget([], '/etc')).toThrow(AppError);
  });
});

/** Renames `sub` and `sub.link` into each other's place in a tight loop, in another process. */
function swapLoop(root: string): ChildProcess {
  const script = `
    const fs = require('fs'); const p = (n) => ${JSON.stringify(root)} + '/' + n;
    for (;;) { try { fs.renameSync(p('sub'), p('sub.dir')); fs.renameSync(p('sub.link'), p('sub'));
      fs.renameSync(p('sub'), p('sub.link')); fs.renameSync(p('sub.dir'), p('sub')); } catch {} }`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}
