import type { Clock } from '../ports/clock';
import type { DeploymentJobStore } from './app.ports';
import { MAX_LOG_LINE } from './log-lines';

/** What a deployment keeps of build and deploy log when no setting says otherwise (SLIPWAY_DEPLOY_LOG_MAX_BYTES). */
export const DEFAULT_MAX_LOG_BYTES = 10_000_000;
/** What a stored line costs beyond its text (row header, keys, timestamp): counted against the cap too. */
export const LOG_ROW_OVERHEAD_BYTES = 32;
const WRITE_BATCH = 2000;

/**
 * The build/deploy log of one deployment as it happens: lines are numbered here (one writer per deployment) and
 * written in small batches at most 100 ms apart, so a client polling the log sees them within a second.
 *
 * Bounded: a deployment keeps at most `maxBytes` of log, each line counted as its text plus LOG_ROW_OVERHEAD_BYTES
 * (what earlier tries wrote counts). Lines past it are dropped and counted; `close()` writes one last line saying how
 * much was dropped. A build that prints a million lines costs the database its cap, not a million rows.
 */
export class DeployLog {
  private buffer: { seq: number; phase: 'build' | 'deploy'; text: string; at: Date }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dropped = { lines: 0, bytes: 0 };
  private closed = false;

  constructor(
    private readonly deployments: Pick<DeploymentJobStore, 'appendLogs'>,
    private readonly deploymentId: string,
    private seq: number,
    private readonly clock: Clock,
    private readonly cap: { maxBytes: number; storedBytes: number } = { maxBytes: DEFAULT_MAX_LOG_BYTES, storedBytes: 0 },
  ) {}

  add(phase: 'build' | 'deploy', text: string): void {
    const line = text.slice(0, MAX_LOG_LINE);
    const bytes = Buffer.byteLength(line) + LOG_ROW_OVERHEAD_BYTES;
    // Room is kept for the closing line about what was dropped.
    if (this.closed || this.dropped.lines > 0 || this.cap.storedBytes + bytes > this.cap.maxBytes - 200) {
      this.dropped.lines += 1;
      this.dropped.bytes += bytes;
      return;
    }
    this.cap.storedBytes += bytes;
    this.buffer.push({ seq: ++this.seq, phase, text: line, at: this.clock() });
    this.timer ??= setTimeout(() => void this.flush(), 100);
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const lines = this.buffer;
    this.buffer = [];
    // In statements of at most WRITE_BATCH rows: one INSERT of a noisy build's 100 ms would pass PostgreSQL's
    // 65,535 bind parameters, fail, and lose its lines.
    for (let i = 0; i < lines.length; i += WRITE_BATCH) {
      const batch = lines.slice(i, i + WRITE_BATCH);
      this.writing = this.writing.then(() => this.deployments.appendLogs(this.deploymentId, batch)).catch(() => undefined);
    }
    return this.writing;
  }

  /** The end of this run: a last line when lines were dropped, then everything written. */
  close(phase: 'build' | 'deploy' = 'deploy'): Promise<void> {
    if (!this.closed && this.dropped.lines > 0) {
      const mb = (n: number) => (n / 1_000_000).toFixed(1);
      const text = `… ${this.dropped.lines} more line${this.dropped.lines === 1 ? '' : 's'} (${mb(this.dropped.bytes)} MB) dropped: a deployment keeps at most ${mb(this.cap.maxBytes)} MB of build and deploy log`;
      this.buffer.push({ seq: ++this.seq, phase, text, at: this.clock() });
      this.dropped = { lines: 0, bytes: 0 };
    }
    this.closed = true;
    return this.flush();
  }
}
