// Prometheus text exposition for the operator (issue 15), written by hand (prom-client is not among the project's
// dependencies): the process, the HTTP latency histogram, queue depths and job outcomes, and each agent's
// reachability as the health checks last saw it. Format: https://prometheus.io/docs/instrumenting/exposition_formats/
import { readdir } from 'node:fs/promises';
import type { RequestHandler } from 'express';

/** Upper bounds of the latency buckets, seconds. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Counts of a histogram per label set, cumulative at render time. */
export class LatencyHistogram {
  private readonly series = new Map<string, { labels: Record<string, string>; counts: number[]; sum: number; count: number }>();

  observe(labels: Record<string, string>, seconds: number): void {
    const key = JSON.stringify(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const i = LATENCY_BUCKETS.findIndex((b) => seconds <= b);
    if (i >= 0) s.counts[i]! += 1;
    s.sum += seconds;
    s.count += 1;
  }

  render(name: string, help: string): string {
    const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
    for (const s of this.series.values()) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((b, i) => {
        cumulative += s.counts[i]!;
        lines.push(`${name}_bucket${labelText({ ...s.labels, le: String(b) })} ${cumulative}`);
      });
      lines.push(`${name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${name}_sum${labelText(s.labels)} ${s.sum}`);
      lines.push(`${name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines.join('\n');
  }

  /**
   * Times every request by method, route template (never the raw path: ids would make a series per app) and
   * status class. Requests that matched no route are `unmatched`.
   */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const started = performance.now();
      res.once('finish', () => {
        const route = (req.route as { path?: string } | undefined)?.path;
        this.observe(
          { method: req.method, route: route ? `${req.baseUrl}${route}` : 'unmatched', status: `${Math.floor(res.statusCode / 100)}xx` },
          (performance.now() - started) / 1000,
        );
      });
      next();
    };
  }
}

/** What the exposition reads at scrape time. */
export interface MetricsSources {
  http: LatencyHistogram;
  /** Jobs per queue and state (waiting, active, delayed, completed, failed…), as BullMQ counts them. */
  queues(): Promise<Record<string, Record<string, number>>>;
  /** Every enrolled server: reachable (online) or not, and when it last answered. */
  agents(): Promise<{ name: string; online: boolean; lastSeenAt: Date | null }[]>;
}

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (labels: Record<string, string>) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escape(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};

function family(name: string, type: 'gauge' | 'counter', help: string, samples: [Record<string, string>, number][]): string {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples.map(([l, v]) => `${name}${labelText(l)} ${Number.isFinite(v) ? v : 0}`)].join('\n');
}

const JOB_OUTCOMES = new Set(['completed', 'failed']);

/** The whole exposition, read at scrape time. A source that fails is reported by `slipway_scrape_error`. */
export async function renderMetrics(s: MetricsSources): Promise<string> {
  const out: string[] = [];
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  const fds = await readdir('/proc/self/fd').then((l) => l.length).catch(() => NaN);
  out.push(family('process_cpu_user_seconds_total', 'counter', 'User CPU time of the API process.', [[{}, cpu.user / 1e6]]));
  out.push(family('process_cpu_system_seconds_total', 'counter', 'System CPU time of the API process.', [[{}, cpu.system / 1e6]]));
  out.push(family('process_resident_memory_bytes', 'gauge', 'Resident memory of the API process.', [[{}, mem.rss]]));
  out.push(family('nodejs_heap_used_bytes', 'gauge', 'V8 heap in use.', [[{}, mem.heapUsed]]));
  out.push(family('process_start_time_seconds', 'gauge', 'Start of the process, seconds since the epoch.', [[{}, Math.round(Date.now() / 1000 - process.uptime())]]));
  if (Number.isFinite(fds)) out.push(family('process_open_fds', 'gauge', 'Open file descriptors.', [[{}, fds]]));
  out.push(s.http.render('slipway_http_request_duration_seconds', 'HTTP request latency by method, route template and status class.'));

  const errors: [Record<string, string>, number][] = [];
  try {
    const queues = await s.queues();
    const depth: [Record<string, string>, number][] = [];
    const outcomes: [Record<string, string>, number][] = [];
    for (const [queue, counts] of Object.entries(queues)) {
      for (const [state, n] of Object.entries(counts)) (JOB_OUTCOMES.has(state) ? outcomes : depth).push([{ queue, state }, n]);
    }
    out.push(family('slipway_queue_jobs', 'gauge', 'Jobs per queue and state (waiting, active, delayed, prioritized, waiting-children).', depth));
    out.push(
      family('slipway_job_outcomes', 'gauge', 'Finished jobs per queue by outcome, as BullMQ retains them (the newest 1,000 completed and 5,000 failed).', outcomes.map(([l, v]) => [{ queue: l.queue!, outcome: l.state! }, v])),
    );
  } catch {
    errors.push([{ source: 'queues' }, 1]);
  }
  try {
    const agents = await s.agents();
    const now = Date.now();
    out.push(family('slipway_agent_up', 'gauge', 'Whether the agent of each server answered its last health checks (1) or not (0).', agents.map((a) => [{ node: a.name }, a.online ? 1 : 0])));
    out.push(
      family(
        'slipway_agent_last_seen_seconds',
        'gauge',
        'Seconds since each agent last answered a health check.',
        agents.filter((a) => a.lastSeenAt).map((a) => [{ node: a.name }, Math.max(0, (now - a.lastSeenAt!.getTime()) / 1000)]),
      ),
    );
  } catch {
    errors.push([{ source: 'agents' }, 1]);
  }
  out.push(family('slipway_scrape_error', 'gauge', 'A source of this exposition that could not be read (1).', errors));
  return out.join('\n') + '\n';
}
