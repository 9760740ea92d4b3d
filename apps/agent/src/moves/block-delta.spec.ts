// The block delta of a database's data folder (issue 32, decision 0037): a target holding an earlier copy of a folder
// ends byte-identical to the source after signature → delta → apply, and only the blocks that differ travel.
import { randomBytes } from 'node:crypto';
import { chmod, cp, lstat, mkdir, mkdtemp, open, readdir, readFile, readlink, rename, rm, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyDelta, deltaOf, frame, signatureOf, type DeltaStats, type FileMemo } from './block-delta';

const BLOCK = 4096;

/** Every entry under `root`: kind, mode, and a file's bytes or a link's target. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (dir: string, rel: string) => {
    for (const name of (await readdir(dir)).sort()) {
      const full = path.join(dir, name);
      const p = rel ? `${rel}/${name}` : name;
      const st = await lstat(full);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isDirectory()) {
        out[p] = `dir ${mode}`;
        await visit(full, p);
      } else if (st.isSymbolicLink()) out[p] = `link -> ${await readlink(full)}`;
      else out[p] = `file ${mode} ${st.size} ${(await readFile(full)).toString('base64')}`;
    }
  };
  await visit(root, '');
  out['.'] = `dir ${((await lstat(root)).mode & 0o7777).toString(8)}`;
  return out;
}

async function patch(file: string, at: number, data: Buffer) {
  const h = await open(file, 'r+');
  await h.write(data, 0, data.length, at);
  await h.close();
}

/** signature of `target` → delta of `source` → applied to `target`: what the delta carried and what it did. */
async function sync(source: string, target: string, memo?: FileMemo) {
  const sent: DeltaStats = { files: 0, newFiles: 0, reused: 0, removed: 0, blocks: 0, blockBytes: 0, unread: 0 };
  const chunks: Buffer[] = [];
  for await (const c of deltaOf(source, await signatureOf(target, BLOCK), sent, memo)) chunks.push(c);
  const applied = await applyDelta(target, chunks);
  return { sent, applied, bytes: chunks.reduce((t, c) => t + c.length, 0) };
}

describe('block delta of a folder', () => {
  let dir: string;
  let source: string;
  let target: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'slipway-delta-'));
    source = path.join(dir, 'source');
    target = path.join(dir, 'target');
    await mkdir(path.join(source, 'base', '1'), { recursive: true });
    await chmod(source, 0o700);
    await writeFile(path.join(source, 'base', '1', 'segment'), randomBytes(300 * BLOCK + 1000)); // read 1 MiB at a time
    await writeFile(path.join(source, 'base', '1', 'grows'), randomBytes(3 * BLOCK + 10));
    await writeFile(path.join(source, 'base', '1', 'shrinks'), randomBytes(10 * BLOCK));
    await writeFile(path.join(source, 'removed'), 'gone soon');
    await mkdir(path.join(source, 'old-dir', 'deep'), { recursive: true });
    await writeFile(path.join(source, 'old-dir', 'deep', 'f'), 'x');
    await writeFile(path.join(source, 'becomes-dir'), 'a file first');
    await writeFile(path.join(source, 'empty'), '');
    await mkdir(path.join(source, 'pg_wal'));
    await writeFile(path.join(source, 'pg_wal', '0001'), randomBytes(5 * BLOCK));
    await symlink('base/1/segment', path.join(source, 'link'));
    // The pre-copy: the target holds the source as it was.
    await cp(source, target, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('makes the pre-copied target byte-identical to the source, sending only the blocks that changed', async () => {
    const segment = path.join(source, 'base', '1', 'segment');
    await patch(segment, 20 * BLOCK + 100, randomBytes(50)); // a block in the middle
    await patch(segment, 256 * BLOCK - 10, randomBytes(20)); // across two blocks, and two reads
    await patch(segment, 300 * BLOCK + 10, randomBytes(20)); // the partial last block
    await writeFile(path.join(source, 'base', '1', 'grows'), randomBytes(2 * BLOCK), { flag: 'a' }); // grown
    await truncate(path.join(source, 'base', '1', 'shrinks'), 4 * BLOCK + 7); // truncated
    await writeFile(path.join(source, 'base', '1', 'new'), randomBytes(BLOCK + 1)); // new file
    await rm(path.join(source, 'removed')); // removed file
    await rm(path.join(source, 'old-dir'), { recursive: true }); // removed folder with its content
    await rm(path.join(source, 'becomes-dir'));
    await mkdir(path.join(source, 'becomes-dir')); // a file that became a folder
    await writeFile(path.join(source, 'becomes-dir', 'inside'), 'y');
    await chmod(path.join(source, 'base', '1', 'grows'), 0o640); // a mode change
    await rm(path.join(source, 'link'));
    await symlink('base/1/new', path.join(source, 'link')); // a link pointing elsewhere
    await rename(path.join(source, 'pg_wal', '0001'), path.join(source, 'pg_wal', '0009')); // a recycled segment…
    await patch(path.join(source, 'pg_wal', '0009'), 3 * BLOCK, randomBytes(10)); // …partly written over

    const { sent, applied, bytes } = await sync(source, target);

    expect(await tree(target)).toEqual(await tree(source));
    // Blocks: 4 of the segment, the grown file's last partial block and the 2 appended ones (3), the truncated file's
    // cut block (its first 7 bytes: the others kept are unchanged), the new file's 2, the file inside the new folder 1,
    // the renamed file's written-over block 1 (the renamed file is made from the old one, not sent whole).
    expect(sent.blocks).toBe(4 + 3 + 1 + 2 + 1 + 1);
    expect(applied.blocks).toBe(sent.blocks);
    expect(sent.removed).toBe(3); // removed, old-dir (its content with it), becomes-dir; not pg_wal/0001: renamed
    expect(applied.newFiles).toBe(2);
    expect(applied.reused).toBe(1);
    expect(sent.reused).toBe(1);
    expect(bytes).toBeLessThan(10 * BLOCK);
  });

  it('sends no block when nothing changed, and once the times are equal too, nothing but its end', async () => {
    const { sent } = await sync(source, target);
    expect(sent.blocks).toBe(0);
    expect(await tree(target)).toEqual(await tree(source));
    const again = await sync(source, target);
    expect(again.sent).toEqual({ files: 0, newFiles: 0, reused: 0, removed: 0, blocks: 0, blockBytes: 0, unread: 0 });
    expect(again.bytes).toBe(frame({ o: 'done' }).length);
  });

  it('reads again only the files changed since an earlier delta read them (or changed too recently to tell)', async () => {
    // Files last written an hour ago, but for `fresh`, written now: its time cannot tell a write in the same tick.
    const old = new Date(Date.now() - 3_600_000);
    for (const f of ['base/1/segment', 'base/1/grows', 'base/1/shrinks', 'removed', 'becomes-dir', 'empty', 'pg_wal/0001']) await utimes(path.join(source, f), old, old);
    await writeFile(path.join(source, 'fresh'), randomBytes(BLOCK));
    const memo: FileMemo = new Map();
    await sync(source, target, memo); // a pass: every file read, and remembered
    await patch(path.join(source, 'base', '1', 'grows'), 10, randomBytes(10)); // written after the pass
    const { sent } = await sync(source, target, memo);
    expect(await tree(target)).toEqual(await tree(source));
    expect(sent.blocks).toBe(1);
    // Not read: the segment, shrinks, removed, becomes-dir, empty, pg_wal/0001. Read: grows (changed), and fresh and
    // old-dir/deep/f (written less than 2 s before the pass: their time cannot tell).
    expect(sent.unread).toBe(6);
    // A memo that lies (the target's blocks are not what it says) is not trusted: its hashes must be the target's.
    await patch(path.join(target, 'base', '1', 'segment'), 0, randomBytes(10));
    const again = await sync(source, target, memo);
    expect(again.sent.blocks).toBe(1);
    expect(await tree(target)).toEqual(await tree(source));
  });

  it('describes a copy again without reading the files unchanged since, and reads those changed since', async () => {
    const memo: FileMemo = new Map();
    const first = await signatureOf(target, BLOCK, memo);
    // Files written less than 2 s before the look are read again: the same description.
    expect((await signatureOf(target, BLOCK, memo)).equals(first)).toBe(true);
    // As if looked at long after their last change: a remembered file is not read (its remembered hashes, here made
    // up, are what the description says); a file changed since is read again.
    for (const m of memo.values()) m.statAt += 3_600_000;
    const madeUp = Buffer.alloc(memo.get('base/1/shrinks')!.hashes.length, 0);
    memo.get('base/1/shrinks')!.hashes = madeUp;
    await patch(path.join(target, 'base', '1', 'segment'), 5 * BLOCK, randomBytes(10));
    const again = await signatureOf(target, BLOCK, memo);
    expect(again.includes(madeUp)).toBe(true);
    const fresh: FileMemo = new Map();
    await signatureOf(target, BLOCK, fresh);
    expect(memo.get('base/1/segment')!.hashes.equals(fresh.get('base/1/segment')!.hashes)).toBe(true);
  });

  it('copies a whole folder into a target that has none', async () => {
    await rm(target, { recursive: true });
    const { sent } = await sync(source, target);
    expect(await tree(target)).toEqual(await tree(source));
    expect(sent.newFiles).toBe(sent.files);
  });

  it('refuses a delta that ended before its end', async () => {
    await patch(path.join(source, 'base', '1', 'segment'), 0, randomBytes(10));
    const chunks: Buffer[] = [];
    for await (const c of deltaOf(source, await signatureOf(target, BLOCK))) chunks.push(c);
    const all = Buffer.concat(chunks);
    const withoutEnd = all.subarray(0, all.length - frame({ o: 'done' }).length);
    await expect(applyDelta(target, [withoutEnd])).rejects.toThrow('The delta ended before it was complete');
    await expect(applyDelta(target, [all.subarray(0, all.length - 3)])).rejects.toThrow('A delta stream ended inside a frame');
  });

  it('never writes or renames outside the folder: no .. in a path, nothing through a link', async () => {
    await expect(applyDelta(target, [frame({ o: 'file', p: '../escaped', size: 1, mode: 0o600, uid: 0, gid: 0, mtime: 0 }), frame({ o: 'done' })])).rejects.toThrow(
      'A delta names an invalid path: ../escaped',
    );
    await expect(applyDelta(target, [frame({ o: 'file', p: 'x', from: '../../etc/passwd', size: 1, mode: 0o600, uid: 0, gid: 0, mtime: 0 }), frame({ o: 'done' })])).rejects.toThrow(
      'A delta names an invalid path: ../../etc/passwd',
    );
    const outside = path.join(dir, 'outside');
    await mkdir(outside);
    await symlink(outside, path.join(target, 'evil'));
    const uid = process.getuid!();
    const gid = process.getgid!();
    await expect(applyDelta(target, [frame({ o: 'file', p: 'evil/x', size: 1, mode: 0o600, uid, gid, mtime: 0 }), frame({ o: 'done' })])).rejects.toThrow(
      'A delta writes under evil, which is not a folder on this server',
    );
    await expect(applyDelta(target, [frame({ o: 'file', p: 'evil', size: 1, mode: 0o600, uid, gid, mtime: 0 }), frame({ o: 'done' })])).rejects.toThrow(
      'evil is not a file on this server',
    );
    expect(await readdir(outside)).toEqual([]);
  });
});
