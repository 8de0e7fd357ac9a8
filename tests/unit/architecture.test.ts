// The layout shows the architecture: no import circle (type imports count), activities/ grouped by
// concept, and each layer importing only the layers below it (lint enforces the workflow sandbox).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { projectRoot } from '../../workers/config';

const sourceDirs = ['shared', 'workflows', 'activities', 'serving', 'workers', 'cli', 'scripts', 'bench', 'tests'];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every project module's project imports (value and type), as paths relative to the root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceDirs.flatMap((dir) => sourceFiles(join(projectRoot, dir)))) {
    const imports = ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((entry) => entry.fileName)
      .filter((name) => name.startsWith('.'))
      .flatMap((name) => {
        const target = resolve(dirname(file), name);
        const candidate = [`${target}.ts`, join(target, 'index.ts'), target].find(
          (path) => existsSync(path) && statSync(path).isFile(),
        );
        return candidate && candidate.endsWith('.ts') ? [relative(projectRoot, candidate)] : [];
      });
    graph.set(relative(projectRoot, file), imports);
  }
  return graph;
}

/** The import circles of a graph (each as the files along it, first file repeated at the end). */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

describe('architecture', () => {
  const graph = importGraph();

  test('no module imports itself back through others (type imports included)', () => {
    assert.ok(graph.size > 100, `${graph.size} modules read`);
    assert.deepEqual(
      circles(graph).map((circle) => circle.join(' -> ')),
      [],
    );
  });

  test('the circle finder finds circles', () => {
    assert.deepEqual(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['d']],
        ]),
      ),
      [
        ['a', 'b', 'c', 'a'],
        ['d', 'd'],
      ],
    );
  });

  test('activities/ holds only its index and one folder per concept', () => {
    const entries = readdirSync(join(projectRoot, 'activities')).sort();
    assert.deepEqual(entries, [
      'checker',
      'gateway',
      'images',
      'index.ts',
      'policies',
      'sandbox',
      'store',
      'tasks',
      'tools',
      'training',
    ]);
  });

  test('shared/ holds its modules in one folder per kind, and at its root only the data both languages read', () => {
    const entries = readdirSync(join(projectRoot, 'shared'), { withFileTypes: true });
    const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    assert.deepEqual(folders.sort(), ['chat', 'compact-actions', 'contracts', 'golden', 'math', 'names', 'paths']);
    const files = entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name);
    assert.deepEqual(
      files.filter((name) => !name.endsWith('.json') && name !== 'README.md'),
      [],
      'a module at the root of shared/ belongs in the folder of its kind',
    );
  });

  test('each layer imports only the layers below it', () => {
    const allowed: Record<string, string[]> = {
      shared: ['shared'],
      workflows: ['workflows', 'shared', 'activities'],
      activities: ['activities', 'shared'],
      // the servers fetch published policies from the artifact store themselves (they share nothing else with the
      // workers), through its one client: activities/store
      serving: ['serving', 'shared', 'activities/store'],
      // a worker on a sandbox host serves the model gateway (serving/gateway) its harnesses call
      workers: ['workers', 'activities', 'serving', 'shared', 'workflows'],
      cli: ['cli', 'workers', 'activities', 'serving', 'shared', 'workflows'],
    };
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const layer = file.split('/')[0]!;
      for (const target of imports) {
        const below = allowed[layer]?.some((part) => target === part || target.startsWith(`${part}/`));
        if (allowed[layer] && !below) wrong.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test('workflows import only types from activities/', () => {
    const valueImports = [...graph.keys()]
      .filter((file) => file.startsWith('workflows/'))
      .flatMap((file) => {
        const source = ts.createSourceFile(file, readFileSync(join(projectRoot, file), 'utf8'), ts.ScriptTarget.ES2022);
        return source.statements
          .filter((statement): statement is ts.ImportDeclaration => ts.isImportDeclaration(statement))
          .filter(
            (statement) =>
              (statement.moduleSpecifier as ts.StringLiteral).text.includes('activities') &&
              !statement.importClause?.isTypeOnly,
          )
          .map((statement) => `${file}: ${statement.getText(source)}`);
      });
    assert.deepEqual(valueImports, []);
  });
});
