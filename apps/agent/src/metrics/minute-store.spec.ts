import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MinutePoint } from './aggregate';
import { MinuteStore } from './minute-store';

const point = (minute: number): MinutePoint => ({
  kind: 'app',
  targetId: 'a1',
  workspaceId: 'w1',
  minute,
  cpuMillis: 1,
  memoryMb: 1,
  networkRxBytes: 0,
  networkTxBytes: 0,
  diskReadBytes: 0,
  diskWriteBytes: 0,
  folderMb: -1,
  samples: 1,
});

describe('MinuteStore (closed minutes on disk until acknowledged)', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-minutes-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('answers minutes after the cursor in pages, forgets them once a later cursor acknowledges them, and survives a reopen', async () => {
    const store = await new MinuteStore(dir).open();
    for (const m of [100, 101, 102]) await store.append(m, [point(m)]);
    expect(await store.pull(0, 2)).toEqual({ points: [point(100), point(101)], cursor: 101, done: false });
    // The same cursor again: the same answer (the caller stores idempotently).
    expect((await store.pull(0, 2)).cursor).toBe(101);
    const reopened = await new MinuteStore(dir).open();
    expect(await reopened.pull(101, 2)).toEqual({ points: [point(102)], cursor: 102, done: true });
    expect(await reopened.pending()).toBe(1);
    expect(await reopened.pull(102, 2)).toEqual({ points: [], cursor: 102, done: true });
    expect(await readdir(path.join(dir, 'minutes'))).toEqual([]);
  });

  it('drops minutes past the retention even unacknowledged', async () => {
    const store = await new MinuteStore(dir, 10).open();
    await store.append(100, [point(100)]);
    await store.append(111, [point(111)]);
    expect((await store.pull(0, 10)).points.map((p) => p.minute)).toEqual([111]);
  });

  it('keeps the open minute and baselines in its state file', async () => {
    const store = await new MinuteStore(dir).open();
    expect(await store.loadState()).toBeNull();
    await store.saveState({ open: { minute: 5, totals: {} }, baselines: {}, folders: { a1: 3 } });
    expect(await (await new MinuteStore(dir).open()).loadState()).toEqual({ open: { minute: 5, totals: {} }, baselines: {}, folders: { a1: 3 } });
  });
});
