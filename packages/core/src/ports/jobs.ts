/**
 * What services need of the job queue. packages/queue implements it over BullMQ with the job catalog;
 * the job id is always the id of the row the job belongs to, so a job is never queued twice.
 */
export interface JobQueue {
  enqueue(name: string, payload: Record<string, unknown>, options: { jobId: string; delayMs?: number }): Promise<void>;
}
