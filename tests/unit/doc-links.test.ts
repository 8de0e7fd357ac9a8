// The docs point at things that exist: every relative link, every heading anchor, every repository path named
// in backticks. A file moved or a heading renamed fails here with the doc's file:line and the missing target.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { describeBroken, headingSlugs, scanDocs } from '../helpers/doc-references';
import { projectRoot } from '../../workers/config';

function folderWith(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentrl-doc-links-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("the docs' links and paths", () => {
  test('every relative link, anchor and backticked repository path in our Markdown leads somewhere', () => {
    const result = scanDocs(projectRoot);
    assert.deepEqual(result.broken, [], `broken references in the docs:\n${describeBroken(result.broken)}`);
    // a scan that silently matched nothing would pass as well: it must have read the docs and found their references
    for (const doc of ['README.md', 'docs/checker.md', 'docs/sandbox.md', 'docs/benchmarks.md', 'trainer/README.md']) {
      assert.ok(result.files.includes(doc), `${doc} was not scanned`);
    }
    assert.ok(!result.files.some((file) => file.startsWith('tasks/real/') || file.startsWith('node_modules/')));
    assert.ok(result.links >= 50 && result.anchors >= 20 && result.paths >= 300, JSON.stringify(result));
  });

  test('a missing file, a missing anchor and a moved path are each reported with the file and line that name them', () => {
    const root = folderWith({
      'README.md': [
        '# Project',
        '',
        'See [the guide](docs/guide.md), [its setup](docs/guide.md#set-up-the-machine) and',
        '[gone](docs/gone.md); [the anchor](docs/guide.md#no-such-heading) is not there.',
        '',
        'The code: `src/kept.ts`, `src/moved.ts` and `kept.ts`; `conftest.py`, `/tests` and `~/.cache/x` are not ours.',
        '',
        '```sh',
        'node src/also-gone.ts   # a command in a code block is not checked',
        '```',
      ].join('\n'),
      'docs/guide.md':
        '# Guide\n\n## Set up the machine\n\nBack to [the project](../README.md#project) and [the top](#guide).\n\nIts `renamed.ts`.\n',
      'src/kept.ts': '',
    });
    const result = scanDocs(root, ['README.md', 'docs/guide.md']);
    assert.deepEqual(describeBroken(result.broken).split('\n'), [
      'README.md:4: link docs/gone.md: docs/gone.md does not exist',
      'README.md:4: anchor docs/guide.md#no-such-heading: docs/guide.md has no heading #no-such-heading',
      'README.md:6: path src/moved.ts: no such file or folder',
      'docs/guide.md:7: path renamed.ts: no file of that name',
    ]);
  });

  test("anchors are GitHub's: rendered heading text, punctuation dropped, spaces as hyphens, repeats numbered", () => {
    const slugs = headingSlugs(
      [
        '## Real models: SmolLM2-135M-Instruct',
        "## Policies and the model's view",
        '## The warm pool against cold containers (`npm run bench:pool`)',
        '## [Linked](x.md) and **bold** `code_name`',
        '## Outcomes',
        '## Outcomes',
        '```',
        '## not a heading inside a code block',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(
      [...slugs],
      [
        'real-models-smollm2-135m-instruct',
        'policies-and-the-models-view',
        'the-warm-pool-against-cold-containers-npm-run-benchpool',
        'linked-and-bold-code_name',
        'outcomes',
        'outcomes-1',
      ],
    );
  });
});
