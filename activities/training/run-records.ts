import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { TrainingRunState } from '../../shared/training-run';
import { IterationMetrics } from '../../shared/run-metrics';
import { atomicWrite, parseJson } from '../store/files';

/**
 * The folder of a training run, and its one owner: every file of it is named, written, read and
 * parsed here (the trainer writes its own checkpoints/, policies/ and steps/ beside them).
 *
 *   runs/<run>/manifest.json       config, seed, task-set hashes, code version, published versions (RunManifest)
 *   runs/<run>/state.json          what a resumed run continues from (TrainingRunState)
 *   runs/<run>/metrics.jsonl       one IterationMetrics line per iteration
 *   runs/<run>/batches/<name>.safetensors
 *   runs/<run>/report.md, reward.svg
 */

export const runDirOf = (artifactsDir: string, runId: string): string => join(artifactsDir, 'runs', runId);
export const batchPathOf = (runDir: string, name: string): string => join(runDir, 'batches', `${name}.safetensors`);

const TaskSetRecord = z.object({ path: z.string(), count: z.number().int(), sha256: z.string() });

export const RunManifest = z.object({
  runId: z.string(),
  /** the run's input (TrainingRunInput), as given: `--resume` starts the run again with it */
  config: z.record(z.string(), z.unknown()),
  seed: z.unknown().optional(),
  taskSets: z.object({ train: TaskSetRecord, eval: TaskSetRecord }),
  codeVersion: z.string(),
  createdAt: z.string(),
  policyVersions: z.array(z.object({ step: z.number().int(), version: z.string() })),
});
export type RunManifest = z.infer<typeof RunManifest>;

const manifestPath = (runDir: string) => join(runDir, 'manifest.json');
const statePath = (runDir: string) => join(runDir, 'state.json');
const metricsPath = (runDir: string) => join(runDir, 'metrics.jsonl');

async function readParsed<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S> | null> {
  if (!existsSync(path)) return null;
  return parseJson(schema, await readFile(path, 'utf8'), path);
}

export const readManifest = (runDir: string): Promise<RunManifest | null> =>
  readParsed(manifestPath(runDir), RunManifest);

export async function writeManifest(runDir: string, manifest: RunManifest): Promise<void> {
  await atomicWrite(manifestPath(runDir), `${JSON.stringify(RunManifest.parse(manifest), null, 2)}\n`);
}

export const readState = (runDir: string): Promise<TrainingRunState | null> =>
  readParsed(statePath(runDir), TrainingRunState);

export async function writeState(state: TrainingRunState): Promise<void> {
  await atomicWrite(statePath(state.runDir), `${JSON.stringify(TrainingRunState.parse(state), null, 2)}\n`);
}

/** Every line of metrics.jsonl, parsed; [] before the first iteration. */
export async function readMetrics(runDir: string): Promise<IterationMetrics[]> {
  const path = metricsPath(runDir);
  if (!existsSync(path)) return [];
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line, index) => parseJson(IterationMetrics, line, `${path}:${index + 1}`));
}

export async function writeMetrics(runDir: string, lines: readonly IterationMetrics[]): Promise<void> {
  await atomicWrite(
    metricsPath(runDir),
    lines.length ? `${lines.map((line) => JSON.stringify(line)).join('\n')}\n` : '',
  );
}
