import { AppError, type GithubService, type GithubWebhookService } from '@slipway/core';
import type { Request } from 'express';
import type { HandlerTable } from '../http/operations';

/** GitHub's own cap on a webhook payload. */
const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

export function githubRoutes(s: { github: GithubService; githubWebhooks: GithubWebhookService }): HandlerTable {
  return {
    getGithubInstallUrl: ({ access }) => s.github.installUrl(access),
    completeGithubSetup: ({ query }) => s.github.setup(query.installation_id, query.state),
    listGithubInstallations: async ({ access }) => ({ data: await s.github.listInstallations(access) }),
    listGithubRepositories: ({ access, params, query }) =>
      s.github.listRepositories(access, Number(params.installationId), { page: query.page ?? 1, perPage: query.perPage ?? 30 }),
    // The raw bytes, not a parsed body: the signature is over exactly what GitHub sent (the operation declares a raw
    // body, so neither the JSON parser nor the strict-JSON check runs on this route).
    receiveGithubWebhook: async ({ req }) => {
      const outcome = await s.githubWebhooks.receive({
        body: await rawBody(req, MAX_WEBHOOK_BYTES),
        signature: req.get('x-hub-signature-256'),
        event: req.get('x-github-event'),
        deliveryId: req.get('x-github-delivery'),
      });
      return outcome;
    },
  };
}

async function rawBody(req: Request, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > max) throw new AppError('payload_too_large', `A webhook delivery is limited to ${max} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new AppError('payload_too_large', `A webhook delivery is limited to ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
