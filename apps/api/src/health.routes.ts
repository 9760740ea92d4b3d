import { randomUUID } from 'node:crypto';
import { Router } from 'express';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/**
 * `/healthz`: the process is up. `/readyz`: every dependency answers (database, Redis, at least
 * one agent); 503 with the failing checks otherwise, so a load balancer keeps traffic away. Both say
 * `bootId`, this process start's id: the scripts that start the API (deploy/platform.sh, setup) check
 * that the process answering is the one they started, not an orphan holding the port.
 */
export function healthRoutes(checks: ReadinessCheck[], bootId: string = randomUUID(), timeoutMs = 2_000): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ ok: true, bootId });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async (c) => {
        try {
          await withTimeout(c.check(), timeoutMs);
          return { name: c.name, ok: true as const };
        } catch (e) {
          return { name: c.name, ok: false as const, error: (e as Error).message };
        }
      }),
    );
    const ok = results.every((r) => r.ok);
    res.status(ok ? 200 : 503).json({ ok, bootId, checks: results });
  });
  return router;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}
