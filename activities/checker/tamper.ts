import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import { TamperFinding } from '../../shared/contracts/episode';
import { parseJson } from '../store/files';
import { checkerScript, sharedDir } from './scripts';
import type { FileChange } from './changes';
import { GraderError } from './grading';

/** Runs the tamper detector (pure static analysis of the diff; no submitted code runs). */
export async function detectTamper(changes: readonly FileChange[]): Promise<TamperFinding[]> {
  const script = checkerScript('detect-tamper.py');
  const kindsFile = join(sharedDir, 'tamper-kinds.json');
  const checkerPathsFile = join(sharedDir, 'checker-paths.json');
  const output = await new Promise<string>((resolveRun, reject) => {
    const child = spawn('python3', ['-I', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolveRun(stdout)
        : reject(new GraderError(`tamper detector failed (exit ${code}): ${stderr.slice(-500)}`)),
    );
    // JSON lines, written one change at a time: the changes are never one string
    child.stdin.on('error', () => undefined); // a detector that exits early is reported by its exit code
    child.stdin.write(`${JSON.stringify({ format: 'lines', kindsFile, checkerPathsFile })}\n`);
    for (const change of changes) child.stdin.write(`${JSON.stringify(change)}\n`);
    child.stdin.end();
  });
  return parseJson(z.object({ findings: z.array(TamperFinding) }), output, 'tamper detector output').findings;
}
