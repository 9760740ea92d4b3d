import type { Attempt } from '@slipway/core';
import type { JobName, JobPayloads } from '@slipway/queue';

export interface JobContext {
  jobId: string;
  attempt: Attempt;
  /** A line in the job's log (shown by `slipway-admin job ID`). */
  log(line: string): Promise<void>;
}

/** A processor calls one service and nothing more. */
export type Processor<N extends JobName> = (payload: JobPayloads[N], ctx: JobContext) => Promise<unknown>;

/** One processor per catalog entry: the compiler refuses a catalog job without one. */
export type Processors = { [N in JobName]: Processor<N> };
