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
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.spec\\.ts$', '\\.starters\\.spec\\.ts$'],
    },
    {
      displayName: 'integration',
      roots,
      transform,
      testMatch: ['**/*.int.spec.ts'],
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
  ],
};

export default config;
