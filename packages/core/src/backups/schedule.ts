import { createHash } from 'node:crypto';
import type { BackupKind, BackupSettings, BackupSource, NewBackup } from './backup.ports';

/**
 * The nightly schedule, pure (the clock is the caller's): each database gets one slot in the window of server-local
 * hours, spread over it by a hash of its id so a server's databases do not all dump at once. The scheduler only
 * ever looks at the latest night whose slot has passed, so nights missed while the control plane was down are
 * caught up once (that latest night), not once per missed night.
 */
export interface NightSlot {
  /** The night, as the server-local date the window starts on (YYYY-MM-DD). */
  night: string;
  at: Date;
}

const DAY_MS = 86_400_000;

/** Minutes in the window [start, end); an end at or before the start runs past midnight. */
export function windowMinutes(w: BackupSettings['window']): number {
  const hours = (w.endHour - w.startHour + 24) % 24 || 24;
  return hours * 60;
}

/** The database's minute within the window (stable for the database). */
export function slotMinute(databaseId: string, w: BackupSettings['window']): number {
  const h = createHash('sha256').update(databaseId).digest();
  return h.readUInt32BE(0) % windowMinutes(w);
}

/** The latest slot of the database at or before `now` (tonight's once it passed, else last night's). */
export function latestSlot(now: Date, databaseId: string, s: Pick<BackupSettings, 'window' | 'timeZone'>): NightSlot {
  const today = localDate(now, s.timeZone);
  const minute = s.window.startHour * 60 + slotMinute(databaseId, s.window);
  for (let back = 0; back <= 2; back++) {
    const night = addDays(today, -back);
    const at = fromLocal(night, minute, s.timeZone);
    if (at.getTime() <= now.getTime()) return { night, at };
  }
  // Unreachable (two days back is always past); kept total for the type.
  const night = addDays(today, -3);
  return { night, at: fromLocal(night, minute, s.timeZone) };
}

/** When the window of `night` (a server-local date, as `NightSlot.night`) ends: nightly retries stop before it. */
export function windowEnd(night: string, s: Pick<BackupSettings, 'window' | 'timeZone'>): Date {
  return fromLocal(night, s.window.startHour * 60 + windowMinutes(s.window), s.timeZone);
}

/**
 * When the next try of a nightly backup whose try `tryNumber` (1 for the first) just failed at `now` runs: tries are
 * `retry.firstDelayMs` apart, doubling (5, 10, 20 min by default), at most `retry.tries` in all, and only while the
 * night's window lasts. null: no try left (the last one was made, or the window ends before the next would start).
 */
export function nextNightlyTry(now: Date, night: string, tryNumber: number, s: Pick<BackupSettings, 'window' | 'timeZone' | 'nightlyRetry'>): Date | null {
  const retry = s.nightlyRetry ?? DEFAULT_NIGHTLY_RETRY;
  if (tryNumber >= retry.tries) return null;
  const at = new Date(now.getTime() + retry.firstDelayMs * 2 ** (tryNumber - 1));
  return at.getTime() < windowEnd(night, s).getTime() ? at : null;
}

/** Nightly backups that fail are tried again within their window: 4 tries in all, 5 min after the first, doubling. */
export const DEFAULT_NIGHTLY_RETRY = { tries: 4, firstDelayMs: 5 * 60_000 } as const;

/** When a backup of this kind made at `at` expires. */
export function expiryOf(kind: BackupKind, at: Date, s: Pick<BackupSettings, 'retentionDays'>): Date {
  return new Date(at.getTime() + s.retentionDays[kind] * DAY_MS);
}

/** A new backup's row: what the database was (name, engine, version, size) when it was taken, and when it expires. */
export function newBackup(
  id: string,
  db: Pick<BackupSource, 'id' | 'workspaceId' | 'nodeId' | 'name' | 'engine' | 'version' | 'cpuMillis' | 'memoryMb' | 'diskMb'>,
  kind: BackupKind,
  now: Date,
  s: Pick<BackupSettings, 'retentionDays'>,
): NewBackup {
  return {
    id,
    workspaceId: db.workspaceId,
    databaseId: db.id,
    nodeId: db.nodeId,
    sourceName: db.name,
    engine: db.engine,
    version: db.version,
    cpuMillis: db.cpuMillis,
    memoryMb: db.memoryMb,
    diskMb: db.diskMb,
    kind,
    expiresAt: expiryOf(kind, now, s),
    createdAt: now,
  };
}

/** The local calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(at: Date, timeZone: string): string {
  const p = parts(at, timeZone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

/** The instant of `minute` minutes after local midnight of `date` in the time zone (may be the next day). */
export function fromLocal(date: string, minute: number, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d) + minute * 60_000;
  // The zone's offset at the guess, twice (a guess across a DST change settles on the second pass).
  let utc = wall - offsetMs(new Date(wall), timeZone);
  utc = wall - offsetMs(new Date(utc), timeZone);
  return new Date(utc);
}

function offsetMs(at: Date, timeZone: string): number {
  const p = parts(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour % 24, p.minute, p.second);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(at: Date, timeZone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timeZone, f);
  }
  const out: Record<string, number> = {};
  for (const p of f.formatToParts(at)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return { year: out.year!, month: out.month!, day: out.day!, hour: out.hour!, minute: out.minute!, second: out.second! };
}

function addDays(date: string, n: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d) + n * DAY_MS);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

const pad = (n: number) => String(n).padStart(2, '0');
