// What the agent's two writers of Caddy config (CaddyIngress: app routes; CustomDomains: custom domains) share: one
// change at a time, a watchdog that reconciles every few seconds, the wanted set saved atomically, admin requests.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { plainRequest } from '../plain-http';

/** Runs work one piece at a time, in call order; a failed piece does not stop the next. */
export class SerialQueue {
  private queue: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Calls `tick` every `intervalMs` after the previous call ended, until `stop()`; a failure goes to `onError`. */
export class Watchdog {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly tick: () => Promise<unknown>,
    private readonly onError: (e: Error) => void,
  ) {}

  start(intervalMs: number): void {
    const next = () => {
      this.timer = setTimeout(() => {
        this.tick()
          .catch(this.onError)
          .finally(() => this.timer && next());
      }, intervalMs);
    };
    next();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** What saveJson wrote to `file`; undefined when nothing was saved yet (JSON itself has no undefined). */
export async function loadJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return undefined;
  }
}

/** Writes `value` as JSON to `file` (mode 0600) through a temporary file and a rename. */
export async function saveJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp`;
  await writeFile(tmp, JSON.stringify(value), { mode: 0o600 });
  await rename(tmp, file);
}

/**
 * One request to Caddy's admin API; a body answered is parsed as JSON (null when empty). A request that gets no answer
 * fails with what happened and its code ("… did not answer PUT /id/app-…: socket hang up (ECONNRESET)").
 */
export async function caddyRequest<T>(adminUrl: string, method: string, p: string, body: unknown, timeoutMs: number): Promise<{ status: number; text: string; json: T | null }> {
  const res = await plainRequest(`${adminUrl}${p}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs,
  }).catch((e: NodeJS.ErrnoException) => {
    throw new Error(`Caddy's admin API (${adminUrl}) did not answer ${method} ${p}: ${e.message}${e.code && !e.message.includes(e.code) ? ` (${e.code})` : ''}`, { cause: e });
  });
  const ok = res.status >= 200 && res.status < 300 && res.text.trim() !== '' && res.text.trim() !== 'null';
  return { ...res, json: ok ? (JSON.parse(res.text) as T) : null };
}
