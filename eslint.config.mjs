// Lint: typed rules for promises, and the layering: workflows/ and shared/ run in Temporal's workflow
// sandbox (no Node built-in at all, no activity-side library); shared/ imports nothing from the layers above it.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  ...new Set(builtinModules.flatMap((name) => (name.startsWith('node:') ? [name] : [name, `node:${name}`]))),
];
const activitySide = [
  'dockerode',
  'onnxruntime-node',
  'tar-stream',
  'yaml',
  '@temporalio/worker',
  '@temporalio/client',
  '@temporalio/activity',
  '@temporalio/testing',
];
const sandboxMessage = 'workflows/ and shared/ run in the workflow sandbox: no Node APIs or activity-side libraries';
const restrictedPaths = [...nodeBuiltins, ...activitySide].map((name) => ({ name, message: sandboxMessage }));
// the layers above: a workflow or shared module never imports a composition root, the CLI or the servers
const upperLayers = (depth) =>
  ['workers', 'cli', 'serving', 'bench', 'scripts', 'tests'].flatMap((dir) => [
    `${depth}${dir}`,
    `${depth}${dir}/*`,
    `${depth}${dir}/**`,
  ]);

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.venv/**',
      '.agentrl/**',
      '.cache/**',
      '.scratch/**',
      'dist/**',
      'bin/**',
      'eslint.config.mjs',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // promises awaited only where they are promises, never passed where a void callback is expected
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-array-delete': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // node:test's test() and describe() return promises that the runner itself awaits
    files: ['tests/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'describe', 'it'], package: 'node:test' }] },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: restrictedPaths,
          patterns: [
            {
              group: ['../activities', '../activities/*', '../activities/**'],
              allowTypeImports: true,
              message: 'workflows import types only from activities (import type)',
            },
            { group: upperLayers('../'), message: 'workflows import only shared/ (and types from activities/)' },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: restrictedPaths,
          patterns: [
            {
              group: ['**/activities', '**/activities/**', '**/workflows', '**/workflows/**'],
              message: 'shared/ imports nothing from activities/ or workflows/, not even types',
            },
            {
              group: [...upperLayers('../'), ...upperLayers('../../')],
              message: 'shared/ imports only shared/ and pure libraries',
            },
          ],
        },
      ],
    },
  },
);
