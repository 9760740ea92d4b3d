import type { Clock } from '../ports/clock';
import type { DeploymentJobStore } from './app.ports';
import { MAX_LOG_LINE } from './log-lines';

/**
 * The build/deploy log of one deployment as it happens: lines are numbered here (one writer per deployment) and
 * written in small batches at most 100 ms apart, so a client polling the log sees them within a second.
 */
export class DeployLog {
  private buffer: { seq: number; phase: 'build' | 'deploy'; text: string; at: Date }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deployments: Pick<DeploymentJobStore, 'appendLogs'>,
    private readonly deploymentId: string,
    private seq: number,
    private readonly clock: Clock,
  ) {}

  add(phase: 'build' | 'deploy', text: string): void {
    this.buffer.push({ seq: ++this.seq, phase, text: text.slice(0, MAX_LOG_LINE), at: this.clock() });
    this.timer ??= setTimeout(() => void this.flush(), 100);
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const lines = this.buffer;
    this.buffer = [];
    if (lines.length) this.writing = this.writing.then(() => this.deployments.appendLogs(this.deploymentId, lines)).catch(() => undefined);
    return this.writing;
  }
}
