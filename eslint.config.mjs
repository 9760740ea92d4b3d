import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

const TESTING_ONLY = { group: ['@slipway/testing', '@slipway/testing/*'], message: 'Only *.spec.ts files and bench/ use @slipway/testing.' };
const NO_APPS = { group: ['@slipway/api', '@slipway/api/*', '@slipway/worker', '@slipway/worker/*', '@slipway/agent', '@slipway/agent/*', '@slipway/admin', '@slipway/admin/*', '@slipway/cli', '@slipway/cli/*'], message: 'Packages never import an app (CONTRIBUTING.md, Where things go).' };

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
    files: ['packages/config/**', 'testing/**', 'bench/**', '**/*.spec.ts', 'jest.config.ts', 'prisma.config.ts', 'apps/*/src/main.ts', 'apps/cli/src/**', 'apps/slipway/src/**'],
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
  {
    // Tests that cannot pass by doing nothing (issue 35; CONTRIBUTING.md, Tests). Type information (projectService)
    // for the specs only: no-floating-promises needs it, and the rest of the tree lints faster without.
    files: ['**/*.spec.ts'],
    plugins: { jest },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'jest/no-disabled-tests': 'error',
      'jest/no-focused-tests': 'error',
      'jest/no-conditional-in-test': 'error',
      'jest/no-conditional-expect': 'error',
      'jest/valid-expect': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      // A case that cannot run here is skipped through @slipway/testing/skips (`requires(…)`), which puts the reason in
      // the title and fails instead under CI=true for what CI must have: never a bare `it.skip` / `describe.skip`.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[object.name=/^(it|test|describe)$/][property.name="skip"]',
          message: 'Skip through requires() of @slipway/testing/skips: the reason goes into the title (CONTRIBUTING.md, Tests).',
        },
      ],
    },
  },
  {
    // The API composes packages only: it never imports the worker (nor another app); the workers are their own process.
    files: ['apps/api/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [TESTING_ONLY, NO_APPS] }] },
  },
  {
    files: ['apps/api/src/**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_APPS] }] },
  },
);
