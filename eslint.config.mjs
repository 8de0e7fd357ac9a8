// Lint: typed rules for promises, and the layering: workflows/ and shared/ run in Temporal's workflow
// sandbox (no Node built-in at all, no activity-side library); shared/ imports nothing from the layers above it.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// `import {} from 'x'` imports nothing and runs the module for its effects, which none of ours has: a
// leftover of an import whose names went away (a side effect wanted says so: `import 'x'`)
const noEmptyImport = {
  meta: {
    type: 'problem',
    messages: { empty: 'an import of no name: remove it (or write `import {0}` for a side effect)' },
  },
  create(context) {
    return {
      ImportDeclaration(node) {
        if (node.specifiers.length > 0) return;
        const text = context.sourceCode.getText(node);
        if (/^import\s+(type\s+)?\{\s*\}/.test(text))
          context.report({ node, messageId: 'empty', data: { 0: `'${node.source.value}'` } });
      },
    };
  },
};
// code that runs in production: everything but the tests and the benchmarks
const production = [
  'activities/**/*.ts',
  'workflows/**/*.ts',
  'shared/**/*.ts',
  'cli/**/*.ts',
  'serving/**/*.ts',
  'workers/**/*.ts',
  'scripts/**/*.ts',
];

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
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { agentrl: { rules: { 'no-empty-import': noEmptyImport } } },
    rules: {
      'agentrl/no-empty-import': 'error',
      // a name starting with _ is unused on purpose (a parameter a signature requires, a rest's leftover)
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
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
    files: production,
    rules: {
      // prettier wraps code at 120; what it cannot wrap (a long string, a comment) is wrapped by hand
      'max-len': ['error', { code: 120, ignoreUrls: false }],
    },
  },
  {
    files: ['workflows/**/*.ts', 'cli/**/*.ts', 'shared/**/*.ts'],
    // a state, a command or a rule that needs more is several steps, each with its name
    rules: { 'max-lines-per-function': ['error', { max: 120 }] },
  },
  {
    files: ['bench/**/*.ts'],
    rules: {
      // a chaos scenario's hooks and a bench's jobs share one async signature; some have nothing to wait for
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // node:test's test() and describe() return promises that the runner itself awaits
    files: ['tests/**/*.ts'],
    rules: {
      // tests read what processes print, JSON from stores and histories, and payloads of any shape, then
      // assert on it: the assertion is the type check, a cast before it would only hide a wrong shape
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // stubbed activities are async without awaiting: they must have the real activity's signature
      '@typescript-eslint/require-await': 'off',
      // MockActivityEnvironment runs an activity detached from the object that made it, as a worker
      // does; our activities are closures that never read `this`
      '@typescript-eslint/unbound-method': 'off',
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
