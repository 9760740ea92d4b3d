// The API as main.ts composes and mounts it (services over the given deps, plan catalog seeded), on a free port of 127.0.0.1, for the test API and the platform harness. Every
// response is checked against the OpenAPI document; close() fails when one broke it.
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { apiRouter, createApp, createServices, type AppDeps, type ContractViolation, type ServiceDeps, type Services } from '@slipway/api';
import { createLogger } from '@slipway/config';
import { ReadCache } from '@slipway/db';

/** The origin the test API treats as its public one; ApiClient sends it as Origin. */
export const TEST_PUBLIC_ORIGIN = 'http://api.slipway.test';

export interface ServedApi {
  services: Services;
  base: string;
  /** The origin cookie writes must come from: TEST_PUBLIC_ORIGIN, or `base` itself (a browser on the console). */
  publicOrigin: string;
  violations: ContractViolation[];
  /** Stops the server; throws when a response broke the contract. */
  close(): Promise<void>;
}

export async function serveApi(
  deps: ServiceDeps,
  name: string,
  readiness: AppDeps['readiness'],
  /** `host`: the address to listen on (default 127.0.0.1; the fleet harness listens where its servers reach the host). */
  options: { publicOrigin?: 'self'; host?: string } = {},
): Promise<ServedApi> {
  // The reads from memory, as main.ts serves them, unless the caller chose (null: none).
  const reads = deps.reads === undefined ? new ReadCache(deps.sql) : deps.reads;
  if (deps.reads === undefined) await reads?.start();
  const services = createServices({ ...deps, reads });
  await services.plans.seed();
  const violations: ContractViolation[] = [];
  // Listening first: with publicOrigin 'self' the API's public origin is its own address (a browser on the console).
  const server = createServer();
  const host = options.host ?? '127.0.0.1';
  server.listen(0, host);
  await new Promise((r) => server.once('listening', r));
  const base = `http://${host}:${(server.address() as AddressInfo).port}`;
  const publicOrigin = options.publicOrigin === 'self' ? base : TEST_PUBLIC_ORIGIN;
  const app = createApp({
    logger: createLogger(name, 'silent'),
    readiness,
    v1: [
      apiRouter(services, {
        publicOrigin,
        secureCookies: false,
        bodyLimitBytes: 1024 * 1024,
        onContractViolation: (v) => violations.push(v),
      }),
    ],
  });
  server.on('request', app);
  return {
    services,
    base,
    publicOrigin,
    violations,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      if (deps.reads === undefined) await reads?.close();
    },
  };
}

export function assertNoViolations(violations: ContractViolation[]): void {
  if (violations.length) throw new Error(`Responses that break the OpenAPI document:\n${JSON.stringify(violations, null, 2)}`);
}
