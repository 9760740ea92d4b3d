// Following logs as they are written: the deployment's build and deploy log until it is done, and an app's runtime
// log for `logs -f`. The log endpoints are paged by `after`: a deployment's log is long-polled (`wait`) where the
// platform offers it; otherwise, and for runtime logs, we ask at most once a second unless a full page says more waits.
import { ApiError, unwrap, type Schemas } from '@slipway/api-client';
import type { Context } from './context';
import { colours, useColour } from './output';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const plain = !useColour(process.stdout);

const PAGE = 500;
const LONG_POLL_S = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const FINISHED = new Set(['live', 'failed', 'cancelled', 'superseded', 'crashed']);

type Line = Schemas['LogChunk']['data'][number];

export function formatLine(line: Line, withTime = false): string {
  const prefix = line.phase === 'build' ? colours.dim('build │ ') : line.phase === 'deploy' ? colours.cyan('deploy │ ') : '';
  // The app's own colours stay on a terminal; piped or with NO_COLOR, the text is plain.
  return `${withTime ? colours.dim(`${line.at} `) : ''}${prefix}${plain ? line.text.replace(ANSI, '') : line.text}`;
}

/**
 * Prints the deployment's log as it is written until the deployment is finished; answers the deployment as it ended.
 * `print` false only waits.
 */
export async function followDeployment(ctx: Context, appId: string, deploymentId: string, print = true): Promise<Schemas['Deployment']> {
  const workspaceId = await ctx.workspaceId();
  const path = { workspaceId, appId, deploymentId };
  let after = 0;
  // A platform that knows `wait` holds the answer until a line comes (long polling); an older one refuses the
  // parameter (400 validation_failed) and is polled once a second instead.
  let longPoll = true;
  for (;;) {
    const started = Date.now();
    const query = { after, limit: PAGE, ...(longPoll ? { wait: LONG_POLL_S } : {}) };
    let chunk: Schemas['LogChunk'];
    try {
      chunk = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/logs', { params: { path, query: query as { after: number; limit: number } } }));
    } catch (error) {
      if (longPoll && error instanceof ApiError && error.code === 'validation_failed') {
        longPoll = false;
        continue;
      }
      throw error;
    }
    if (print) for (const line of chunk.data) process.stdout.write(`${formatLine(line)}\n`);
    after = chunk.nextAfter;
    if (chunk.done) break;
    // Polling: at most once a second. Long polling: at once after lines, but never a tight loop of empty answers.
    const pause = longPoll ? chunk.data.length === 0 : chunk.data.length < PAGE;
    if (pause) await sleep(Math.max(0, 1000 - (Date.now() - started)));
  }
  // `done` says every line was read and the deployment is finished: its status is final now.
  for (;;) {
    const deployment = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}', { params: { path } }));
    if (FINISHED.has(deployment.status)) return deployment;
    await sleep(1000);
  }
}

/** Runtime lines of the app's current container, from the start (or `since`), following when asked. */
export async function followRuntime(ctx: Context, workspaceId: string, appId: string, options: { follow: boolean; since?: Date; json: boolean; signal?: AbortSignal }): Promise<void> {
  let after = 0;
  for (;;) {
    const started = Date.now();
    const chunk = await unwrap(ctx.api.GET('/v1/workspaces/{workspaceId}/apps/{appId}/logs', { params: { path: { workspaceId, appId }, query: { after, limit: PAGE } } }));
    // A new container numbers its lines from 1 again.
    if (chunk.nextAfter < after) {
      after = 0;
      continue;
    }
    for (const line of chunk.data) {
      if (options.since && Date.parse(line.at) < options.since.getTime()) continue;
      process.stdout.write(options.json ? `${JSON.stringify(line)}\n` : `${formatLine(line, true)}\n`);
    }
    after = chunk.nextAfter;
    if (chunk.done && !options.follow) return;
    if (options.signal?.aborted) return;
    if (chunk.data.length < PAGE) await sleep(Math.max(0, 1000 - (Date.now() - started)));
  }
}
