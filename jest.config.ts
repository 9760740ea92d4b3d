/** @jest-config-loader ts-node */
import type { Config } from 'jest';

const transform: Config['transform'] = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'commonjs' } }],
};
const roots = ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/testing'];

// Two projects: `unit` needs no services; `integration` talks to real PostgreSQL, Redis, Docker and Caddy.
const config: Config = {
  // Jest reads testTimeout from the top level only (a project's own is ignored): integration tests wait on real
  // builds and rollouts, which take more than the default 5 s on a loaded machine.
  testTimeout: 120_000,
  projects: [
    {
      displayName: 'unit',
      roots,
      transform,
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$', '\\.fleet\\.spec\\.ts$'],
    },
    {
      displayName: 'integration',
      roots,
      transform,
      testMatch: ['**/*.int.spec.ts'],
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
