import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const TESTING_ONLY = { group: ['@slipway/testing', '@slipway/testing/*'], message: 'Only *.spec.ts files and bench/ use @slipway/testing.' };
const NO_APPS = { group: ['@slipway/api', '@slipway/api/*', '@slipway/worker', '@slipway/worker/*', '@slipway/agent', '@slipway/agent/*', '@slipway/cli', '@slipway/cli/*'], message: 'Packages never import an app (CONTRIBUTING.md, Where things go).' };

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'packages/db/src/generated/**', 'packages/proto/src/generated/**', 'packages/api-client/src/generated/**', 'deploy/images/**', 'fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Config is read once in packages/config; nothing else reads process.env (STYLE.md, habit 7).
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings through @slipway/config.' }],
    },
  },
  {
    files: ['packages/config/**', 'testing/**', 'bench/**', '**/*.spec.ts', 'jest.config.ts', 'prisma.config.ts', 'apps/*/src/main.ts', 'apps/cli/src/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Test support is for specs and benchmarks: product code never imports it (CONTRIBUTING.md, Tests).
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'testing/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [TESTING_ONLY] }],
    },
  },
  {
    // Dependencies point inward: a package never imports an app, not even in its specs (the harness that composes
    // the apps is testing/, above them).
    files: ['packages/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [TESTING_ONLY, NO_APPS] }] },
  },
  {
    files: ['packages/*/src/**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_APPS] }] },
  },
);
