// Lint: typed rules for promises, and the Temporal boundary (workflows and shared code stay free of Node APIs).
import tseslint from 'typescript-eslint';

const nodeOnly = ['dockerode', 'onnxruntime-node', 'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process', 'net', 'node:net', 'os', 'node:os', 'path', 'node:path', 'http', 'node:http', 'crypto', 'node:crypto', 'tar-stream', '@temporalio/worker', '@temporalio/client', '@temporalio/activity'];

export default tseslint.config(
  { ignores: ['node_modules/**', '.venv/**', '.agentrl/**', 'dist/**', 'bin/**', 'eslint.config.mjs'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // node:test's test() and describe() return promises that the runner itself awaits
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', name: ['test', 'describe', 'it'], package: 'node:test' }] }] },
  },
  {
    files: ['workflows/**/*.ts', 'shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: nodeOnly.map((name) => ({ name, message: 'workflows/ and shared/ run in the workflow sandbox: no Node APIs or activity-side libraries' })),
        patterns: [{ group: ['../activities', '../activities/*'], allowTypeImports: true, message: 'workflows import types only from activities (import type)' }],
      }],
    },
  },
);
