// The agent's on-disk keeping of closed minutes until the control plane has them (issue 15). One file per closed
// minute (`minutes/<epoch minute>.json`, written to a temporary name and renamed), so a crash leaves whole minutes
// only; the minute's number is the cursor. `state.json` holds the open minute and the counters' baselines, written
// every cycle, so a restart continues the minute it was in. Minutes older than the retention are dropped even
// unacknowledged: the disk stays bounded when no control plane ever asks.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Baseline, MinutePoint, OpenMinute } from './aggregate';

export interface CollectorState {
  open: OpenMinute | null;
  baselines: Record<string, Baseline>;
  /** Last measured size of each app's project folder (MB). */
  folders: Record<string, number>;
}

export interface PullResult {
  points: MinutePoint[];
  cursor: number;
  done: boolean;
}

const NAME = /^(\d+)\.json$/;

export class MinuteStore {
  private readonly minutesDir: string;
  private readonly stateFile: string;

  constructor(
    dir: string,
    /** Closed minutes kept at most this long without acknowledgement (default 26 h: a day's outage and then some). */
    private readonly retentionMinutes = 26 * 60,
  ) {
    this.minutesDir = path.join(dir, 'minutes');
    this.stateFile = path.join(dir, 'state.json');
  }

  async open(): Promise<this> {
    await mkdir(this.minutesDir, { recursive: true });
    // Temporary files of a write a crash interrupted.
    for (const name of await readdir(this.minutesDir)) if (name.endsWith('.tmp')) await rm(path.join(this.minutesDir, name), { force: true });
    return this;
  }

  async loadState(): Promise<CollectorState | null> {
    try {
      return JSON.parse(await readFile(this.stateFile, 'utf8')) as CollectorState;
    } catch {
      return null;
    }
  }

  saveState(state: CollectorState): Promise<void> {
    return writeAtomic(this.stateFile, JSON.stringify(state));
  }

  /** Stores a closed minute (an empty one too: the cursor moves past it) and drops what is past the retention. */
  async append(minute: number, points: MinutePoint[]): Promise<void> {
    await writeAtomic(path.join(this.minutesDir, `${minute}.json`), JSON.stringify(points));
    for (const m of await this.minutes()) if (m < minute - this.retentionMinutes) await this.drop(m);
  }

  /**
   * The closed minutes after `after`, oldest first, at most `limit`; everything up to `after` is acknowledged and
   * forgotten first (the caller stored it before asking with that cursor).
   */
  async pull(after: number, limit: number): Promise<PullResult> {
    const all = await this.minutes();
    for (const m of all) if (m <= after) await this.drop(m);
    const pending = all.filter((m) => m > after);
    const take = pending.slice(0, limit);
    const points: MinutePoint[] = [];
    for (const m of take) {
      const text = await readFile(this.file(m), 'utf8').catch(() => '[]');
      points.push(...(JSON.parse(text) as MinutePoint[]));
    }
    return { points, cursor: take.length > 0 ? take[take.length - 1]! : after, done: pending.length <= take.length };
  }

  /** Closed minutes waiting for the control plane. */
  async pending(): Promise<number> {
    return (await this.minutes()).length;
  }

  private file = (m: number) => path.join(this.minutesDir, `${m}.json`);
  private drop = (m: number) => rm(this.file(m), { force: true });

  private async minutes(): Promise<number[]> {
    const out: number[] = [];
    for (const name of await readdir(this.minutesDir).catch(() => [] as string[])) {
      const m = NAME.exec(name);
      if (m) out.push(Number(m[1]));
    }
    return out.sort((a, b) => a - b);
  }
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}
