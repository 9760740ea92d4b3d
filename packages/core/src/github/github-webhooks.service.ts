import { AppError } from '../errors';
import { GITHUB_DELIVERY_JOB } from '../jobs';
import type { JobQueue } from '../ports/jobs';
import type { Logger } from '../logging';
import type { GithubDeliveryRepository } from './github.ports';
import { isValidWebhookSignature } from './webhook-signature';

/** The events the platform acts on; others are answered 202 and dropped. */
export const HANDLED_EVENTS = ['push', 'installation', 'installation_repositories'] as const;
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

export interface WebhookDelivery {
  /** The raw bytes as they arrived: the signature is over them, nothing is parsed before it is checked. */
  body: Buffer;
  signature: string | undefined;
  event: string | undefined;
  deliveryId: string | undefined;
}

export type WebhookOutcome = { accepted: boolean; duplicate: boolean; event: string };

/**
 * `POST /v1/github/webhooks`: the HMAC first (constant time, over the raw bytes; 401 `invalid_signature`), then the
 * delivery recorded under its `X-GitHub-Delivery` id (a redelivery finds it and queues nothing), then the work
 * handed to the `github.delivery` job. The answer goes back at once; GitHub wants one within 10 s.
 */
export class GithubWebhookService {
  constructor(
    private readonly deps: {
      /** null: no GitHub App configured (503). */
      webhookSecret: string | null;
      deliveries: GithubDeliveryRepository;
      jobs: JobQueue;
      logger: Logger;
    },
  ) {}

  async receive(d: WebhookDelivery): Promise<WebhookOutcome> {
    const secret = this.deps.webhookSecret;
    if (!secret) throw new AppError('github_not_configured', 'No GitHub App is configured on this platform');
    if (!isValidWebhookSignature(secret, d.body, d.signature)) {
      throw new AppError('invalid_signature', 'X-Hub-Signature-256 is missing or does not match the body under the webhook secret');
    }
    const event = d.event ?? '';
    if (!d.deliveryId || !DELIVERY_ID.test(d.deliveryId)) throw new AppError('validation_failed', 'X-GitHub-Delivery is missing or malformed');
    if (!(HANDLED_EVENTS as readonly string[]).includes(event)) return { accepted: false, duplicate: false, event };
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(d.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new AppError('invalid_json', 'The delivery body is not JSON (set the webhook content type to application/json)');
    }
    if (!payload || typeof payload !== 'object') throw new AppError('invalid_json', 'The delivery body is not a JSON object');
    const recorded = await this.deps.deliveries.record(d.deliveryId, event, trim(event, payload));
    if (recorded === 'duplicate') return { accepted: true, duplicate: true, event };
    // A delivery taken again after its job failed for good gets a job of its own (the failed one keeps its id).
    const jobId = recorded === 'retaken' ? `github-${d.deliveryId}-${Date.now()}` : `github-${d.deliveryId}`;
    try {
      await this.deps.jobs.enqueue(GITHUB_DELIVERY_JOB, { deliveryId: d.deliveryId }, { jobId });
    } catch (e) {
      // Nothing will handle it: forget it, so that GitHub's redelivery is taken.
      await this.deps.deliveries.forget(d.deliveryId).catch(() => undefined);
      throw e;
    }
    this.deps.logger.info({ deliveryId: d.deliveryId, event }, 'github delivery queued');
    return { accepted: true, duplicate: false, event };
  }
}

type Json = Record<string, unknown>;

/** What the job needs of a delivery: a push of thousands of files is not kept whole in the database. */
function trim(event: string, p: Json): Json {
  if (event !== 'push') return p;
  const repo = (p.repository ?? {}) as Json;
  const head = (p.head_commit ?? null) as Json | null;
  const author = (head?.author ?? {}) as Json;
  const commits = Array.isArray(p.commits) ? (p.commits as Json[]) : [];
  const files = new Set<string>();
  for (const c of commits) {
    for (const k of ['added', 'removed', 'modified']) for (const f of (Array.isArray(c[k]) ? c[k] : []) as unknown[]) if (typeof f === 'string') files.add(f);
  }
  return {
    ref: p.ref,
    before: p.before,
    after: p.after,
    deleted: p.deleted === true,
    installation: p.installation,
    repository: { id: repo.id, full_name: repo.full_name },
    head_commit: head ? { id: head.id, message: head.message, url: head.url, author: { name: author.name, username: author.username } } : null,
    commitCount: commits.length,
    // GitHub lists at most 20 commits (and 3000 files each) in a push: past that the list is not the whole change.
    truncated: commits.length >= 20 || files.size >= 3000,
    files: [...files].slice(0, 5000),
  };
}
