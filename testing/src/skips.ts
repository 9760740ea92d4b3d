// The one way a case that cannot run here is skipped (issue 35; CONTRIBUTING.md, Tests): decided when the file is
// collected, with the reason in the title, so the run reports it (testing/src/skip-reporter.ts prints each one at the
// end) instead of passing a case that did nothing. What CI's machine is expected to have (`ci: true`) fails under
// CI=true instead of skipping. Specs never write `it.skip` / `describe.skip` themselves (eslint refuses it).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { TEST_SERVICES } from './services';

/** What a case needs of this machine. */
export interface Requirement {
  /** Whether this machine has it (decided at collection time). */
  met: boolean;
  /** What is missing and how to get it, as a sentence: printed with the skip, or with the failure under CI. */
  reason: string;
  /** CI's machine must have it (deploy/test.sh provides it): under CI=true a missing one fails instead of skipping. */
  ci?: boolean;
}

type TestFn = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;
type DescribeFn = (name: string, fn: () => void) => void;

/** Whether this run is CI's (CI=true or CI=1), where a requirement marked `ci` must be met. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.CI === '1';
}

/** The title a skipped case carries: the reporter groups skips by the reason after `skipped: `. */
export function skippedTitle(name: string, reason: string): string {
  return `${name} [skipped: ${reason}]`;
}

const failure = (req: Requirement, name: string) => () => {
  throw new Error(`${req.reason} (CI=true: CI's machine must have it, so "${name}" fails instead of skipping)`);
};

/**
 * `it` and `describe` for cases that need `req`: the real ones when it is met; otherwise `it.skip` / `describe.skip`
 * with the reason in the title, or, for a CI requirement under CI=true, a case that fails with the reason.
 */
export function requires(req: Requirement, env: NodeJS.ProcessEnv = process.env): { it: TestFn; describe: DescribeFn } {
  if (req.met) return { it, describe };
  if (req.ci && isCi(env)) {
    return {
      it: (name) => it(name, failure(req, name)),
      describe: (name) => describe(name, () => it('has what it needs', failure(req, name))),
    };
  }
  return {
    it: (name, fn, timeout) => it.skip(skippedTitle(name, req.reason), fn, timeout),
    describe: (name, fn) => describe.skip(skippedTitle(name, req.reason), fn),
  };
}

/** Root: the loop-mount storage and the fault suite's private services need it (CI's machine runs tests as root). */
export const ROOT: Requirement = { met: process.getuid?.() === 0, reason: 'needs root (loop mounts)', ci: true };

/** Whether `image` is in the test Docker engine now (synchronous: skips are chosen at collection time). */
export function imagePresent(image: string): boolean {
  const res = spawnSync('docker', ['-H', `unix://${TEST_SERVICES.dockerSocket}`, 'image', 'inspect', '--format', '{{.Id}}', image], { stdio: 'ignore', timeout: 10_000 });
  return res.status === 0;
}

/** The Prisma schema engine (or its stand-in, ../shared/tools) the migration drift check needs: deploy/test.sh's gate. */
export function schemaEngine(repoRoot: string, env: NodeJS.ProcessEnv = process.env): Requirement & { path: string } {
  const path = env.PRISMA_SCHEMA_ENGINE_BINARY ?? resolve(repoRoot, '../shared/tools/prisma-schema-engine.mjs');
  return { path, met: existsSync(path), reason: `no Prisma schema engine at ${path} (set PRISMA_SCHEMA_ENGINE_BINARY)`, ci: true };
}
