// Writes the contracts that the Python side reads, from their zod sources in shared/:
//   shared/contracts/trainer.schema.json   (shared/contracts/trainer-contract.ts)
//   shared/contracts/batch.schema.json     (shared/contracts/batch-file.ts)
// Run after changing a contract: npm run contracts (tests/contracts.test.ts fails while the file is stale).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { batchFileSchemaDocument } from '../shared/contracts/batch-file';
import { defaultTaskQueue, trainingQueue, trainingQueueSuffix } from '../shared/names/task-queues';
import { trainerContractDocument } from '../shared/contracts/trainer-contract';
import { projectRoot } from '../workers/config';

/** The text of every generated contract file, by path relative to the project root. */
export function contractFiles(): Record<string, string> {
  const trainerContract = trainerContractDocument(trainingQueueSuffix, trainingQueue(defaultTaskQueue));
  return {
    'shared/contracts/trainer.schema.json': `${JSON.stringify(trainerContract, null, 2)}\n`,
    'shared/contracts/batch.schema.json': `${JSON.stringify(batchFileSchemaDocument(), null, 2)}\n`,
  };
}

if (require.main === module) {
  for (const [path, text] of Object.entries(contractFiles())) {
    writeFileSync(join(projectRoot, path), text);
    console.log(`wrote ${path}`);
  }
}
