// The API as main.ts composes and mounts it (services over the given deps, plan catalog seeded), on a free port of 127.0.0.1, for the test API and the platform harness. Every
// response is checked against the OpenAPI document; close() fails when one broke it.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { apiRouter, createApp, createServices, type AppDeps, type ContractViolation, type ServiceDeps, type Services } from '@slipway/api';
import { createLogger } from '@slipway/config';

/** The origin the test API treats as its public one; ApiClient sends it as Origin. */
export const TEST_PUBLIC_ORIGIN = 'http://api.slipway.test';

export interface ServedApi {
  services: Services;
  base: string;
  violations: ContractViolation[];
  /** Stops the server; throws when a response broke the contract. */
  close(): Promise<void>;
}

/** `host`: the address to listen on (default 127.0.0.1; the fleet harness listens where its servers reach the host). */
export async function serveApi(deps: ServiceDeps, name: string, readiness: AppDeps['readiness'], host = '127.0.0.1'): Promise<ServedApi> {
  const services = createServices(deps);
  await services.plans.seed();
  const violations: ContractViolation[] = [];
  const app = createApp({
    logger: createLogger(name, 'silent'),
    readiness,
    v1: [
      apiRouter(services, {
        publicOrigin: TEST_PUBLIC_ORIGIN,
        secureCookies: false,
        bodyLimitBytes: 1024 * 1024,
        onContractViolation: (v) => violations.push(v),
      }),
    ],
  });
  const server: Server = app.listen(0, host);
  await new Promise((r) => server.once('listening', r));
  return {
    services,
    base: `http://${host}:${(server.address() as AddressInfo).port}`,
    violations,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export function assertNoViolations(violations: ContractViolation[]): void {
  if (violations.length) throw new Error(`Responses that break the OpenAPI document:\n${JSON.stringify(violations, null, 2)}`);
}
