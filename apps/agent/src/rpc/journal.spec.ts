import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OperationJournal, type JournalEntry } from './journal';

describe('the operation journal', () => {
  let dir: string;
  let journal: OperationJournal;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'journal-'));
    journal = await new OperationJournal(path.join(dir, 'operations')).open();
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('answers a done id with its recorded result, across a new journal on the same folder, without working again', async () => {
    let runs = 0;
    const work = () => Promise.resolve(++runs);
    expect((await journal.run('op-1', 'Build', work)).result).toBe(1);
    const again = await new OperationJournal(journal.dir).run('op-1', 'Build', work);
    expect(again).toMatchObject({ result: 1, replayed: true });
    expect(runs).toBe(1);
  });

  it('a call that arrives while the same id runs waits for it, then starts knowing how that try ended', async () => {
    let fail!: (e: Error) => void;
    const first = journal.run('op-2', 'Build', () => new Promise((_, reject) => (fail = reject)));
    const seen: (JournalEntry | null)[] = [];
    const second = journal.run('op-2', 'Build', (_entry, previous) => {
      seen.push(previous);
      return Promise.resolve('second');
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
    fail(new Error('"RUN false" failed (exit code 1)'));
    await expect(first).rejects.toThrow('RUN false');
    expect((await second).result).toBe('second');
    expect(seen).toEqual([expect.objectContaining({ state: 'failed', error: '"RUN false" failed (exit code 1)', starts: 1 })]);
    expect(await journal.read('op-2')).toMatchObject({ state: 'done', starts: 2 });
  });

  it('refuses an id that is not a plain name and an id used by another command', async () => {
    await expect(journal.run('../x', 'Build', () => Promise.resolve(1))).rejects.toThrow(/operation_id must be/);
    await journal.run('op-3', 'Build', () => Promise.resolve(1));
    await expect(journal.run('op-3', 'Remove', () => Promise.resolve(1))).rejects.toThrow('Operation op-3 was a Build, not a Remove');
  });
});
