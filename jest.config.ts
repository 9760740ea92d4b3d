/** @jest-config-loader ts-node */
import type { Config } from 'jest';
// Loaded here, while jest's ts-node hook is on (jest turns it off once this file is read): the reporter below is then
// required from Node's module cache. Left to jest, it is required after the hook is off and fails as untranspiled
// TypeScript on Node 20 (seen as "Unexpected identifier 'CaseResult'" on some runs).
import './testing/src/skip-reporter';

const transform: Config['transform'] = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'commonjs' } }],
};
const roots = ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/testing'];

// Projects (CONTRIBUTING.md, Tests): `unit` needs no services; `api` runs the API over real PostgreSQL and Redis with a
// recording job queue and no agent (`*.api.spec.ts`); `integration` talks to real PostgreSQL, Redis, Docker and Caddy
// (`*.int.spec.ts`), `faults` the same with processes killed and engines restarted (testing/src/faults); `browser`
// drives the web console in Chromium against the same (`*.browser.spec.ts`); `fleet` runs several servers.
const config: Config = {
  // The default reporter, then how many cases were skipped and why (issue 35).
  reporters: ['default', '<rootDir>/testing/src/skip-reporter.ts'],
  // Jest reads testTimeout from the top level only (a project's own is ignored): integration tests wait on real
  // builds and rollouts, which take more than the default 5 s on a loaded machine.
  testTimeout: 120_000,
  projects: [
    {
      displayName: 'unit',
      roots,
      transform,
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.(int|api|browser|starters|fleet)\\.spec\\.ts$'],
    },
    {
      displayName: 'api',
      roots,
      transform,
      testMatch: ['**/*.api.spec.ts'],
      globalSetup: '<rootDir>/testing/src/global-setup.ts',
    },
    {
      displayName: 'integration',
      roots,
      transform,
      testMatch: ['**/*.int.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/testing/src/faults/'],
      globalSetup: '<rootDir>/testing/src/global-setup.ts',
    },
    {
      // The fault suite (testing/src/faults): integration tests that kill the platform's processes and may restart the
      // machine's Docker engine, so deploy/test.sh runs them before anything runs beside them.
      displayName: 'faults',
      roots,
      transform,
      testMatch: ['<rootDir>/testing/src/faults/**/*.int.spec.ts'],
      globalSetup: '<rootDir>/testing/src/global-setup.ts',
    },
    {
      // The web console in Debian's Chromium against the real platform (issue 28; testing/src/browser.ts).
      displayName: 'browser',
      roots,
      transform,
      testMatch: ['**/*.browser.spec.ts'],
      globalSetup: '<rootDir>/testing/src/global-setup.ts',
    },
    {
      // Every framework generator's starter built with no settings (issue 30): about 15 minutes cold on 2 shared
      // cores, so apart from `integration` (which keeps a representative subset in starters.int.spec.ts).
      displayName: 'starters',
      roots,
      transform,
      testMatch: ['**/*.starters.spec.ts'],
      globalSetup: '<rootDir>/testing/src/global-setup.ts',
    },
    {
      // Several servers on this machine (issue 31, @slipway/testing/fleet): network namespaces, a Docker engine and a
      // Caddy each; needs root. One fleet at a time (fixed addresses): run in band.
      displayName: 'fleet',
      roots,
      transform,
      testMatch: ['**/*.fleet.spec.ts'],
      globalSetup: '<rootDir>/testing/src/global-setup.ts',
    },
  ],
};

export default config;
