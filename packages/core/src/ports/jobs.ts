import type { JobName, JobPayloads } from '../jobs';

/**
 * What services need of the job queue, typed by job name. packages/queue implements it over BullMQ with the job
 * catalog; the job id is always the id of the row the job belongs to, so a job is never queued twice.
 */
export interface JobQueue {
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N], options: { jobId: string; delayMs?: number }): Promise<void>;
}
