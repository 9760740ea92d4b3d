import { EventEmitter } from 'node:events';
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@slipway/core';

export interface JournalEntry {
  operationId: string;
  command: string;
  state: 'started' | 'done' | 'failed';
  /** How many times the work was started for this id: 1 unless the agent died mid-work or a try failed. */
  starts: number;
  startedAtMs: number;
  finishedAtMs?: number;
  result?: unknown;
  error?: string;
}

type Work<T> = (entry: JournalEntry, previous: JournalEntry | null) => Promise<T>;

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The record of operation ids this agent has worked on: one JSON file per id under
 * `<dataDir>/operations`, replaced atomically (write, then rename). A command whose id is done
 * answers its recorded result without doing the work again, across restarts; a call that arrives
 * while the same id is running waits for that run instead of starting another.
 */
export class OperationJournal {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private writes = 0;
  readonly events = new EventEmitter();

  constructor(readonly dir: string) {
    this.events.setMaxListeners(0);
  }

  async open(): Promise<this> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    return this;
  }

  /**
   * Runs `work` once for the id (see the class). `work` gets the entry of this try and the one of the try before it,
   * read when this try starts: a call that waited for a running try sees how that one ended.
   */
  async run<T>(operationId: string, command: string, work: Work<T>): Promise<{ result: T; replayed: boolean; entry: JournalEntry }> {
    if (!ID.test(operationId)) throw new AppError('validation_failed', 'operation_id must be 1-128 letters, digits, - or _');
    // Checked and claimed synchronously, so two overlapping calls can never both start the work.
    const running = this.inFlight.get(operationId);
    if (running) {
      await running.catch(() => undefined);
      return this.run(operationId, command, work);
    }
    const promise = this.runOnce(operationId, command, work);
    this.inFlight.set(operationId, promise);
    try {
      return await promise;
    } finally {
      this.inFlight.delete(operationId);
    }
  }

  private async runOnce<T>(operationId: string, command: string, work: Work<T>): Promise<{ result: T; replayed: boolean; entry: JournalEntry }> {
    const previous = await this.read(operationId);
    if (previous && previous.command !== command) {
      throw new AppError('validation_failed', `Operation ${operationId} was a ${previous.command}, not a ${command}`);
    }
    if (previous?.state === 'done') return { result: previous.result as T, replayed: true, entry: previous };
    const entry: JournalEntry = {
      operationId,
      command,
      state: 'started',
      starts: (previous?.starts ?? 0) + 1,
      startedAtMs: performance.timeOrigin + performance.now(),
    };
    await this.write(entry);
    try {
      const result = await work(entry, previous);
      const done: JournalEntry = { ...entry, state: 'done', result, finishedAtMs: performance.timeOrigin + performance.now() };
      await this.write(done);
      return { result, replayed: false, entry: done };
    } catch (e) {
      await this.write({ ...entry, state: 'failed', error: (e as Error).message, finishedAtMs: performance.timeOrigin + performance.now() });
      throw e;
    }
  }

  async read(operationId: string): Promise<JournalEntry | null> {
    if (!ID.test(operationId)) return null;
    try {
      return JSON.parse(await readFile(this.file(operationId), 'utf8')) as JournalEntry;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async list(): Promise<JournalEntry[]> {
    const names = (await readdir(this.dir)).filter((n) => n.endsWith('.json'));
    const entries = await Promise.all(names.map((n) => this.read(n.slice(0, -5))));
    return entries.filter((e): e is JournalEntry => e !== null);
  }

  private async write(entry: JournalEntry): Promise<void> {
    const file = this.file(entry.operationId);
    const tmp = `${file}.${process.pid}-${++this.writes}.tmp`;
    await writeFile(tmp, JSON.stringify(entry), { mode: 0o600 });
    await rename(tmp, file);
    this.events.emit(entry.operationId, entry);
  }

  private file(operationId: string): string {
    return path.join(this.dir, `${operationId}.json`);
  }
}
