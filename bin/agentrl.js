#!/usr/bin/env node
// Entry point of `npx agentrl`: runs the TypeScript CLI through tsx.
require('tsx/cjs/api').register();
require('../cli/main.ts')
  .main(process.argv.slice(2))
  .then((code) => process.exit(code ?? 0))
  .catch((error) => {
    console.error(`agentrl: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
