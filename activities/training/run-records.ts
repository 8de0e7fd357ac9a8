import { z } from 'zod';
import { TrainingRunState } from '../../shared/contracts/run/state';
import { IterationMetrics } from '../../shared/contracts/run-metrics';
import type { ArtifactStore } from '../store/artifact-store';
import { parseJson } from '../store/files';
import { openArtifactStore } from '../store/open-store';

/**
 * The records of a training run, and their one owner: every object of it is named, written, read and
 * parsed here (the trainer writes its own checkpoints/, policies/ and steps/ beside them). A run lives
 * under `runs/<run>/` of the artifact store, and its reference (`runRef`) is that prefix's URL:
 * `file:///…/runs/<run>` or `s3://BUCKET/PREFIX/runs/<run>`. Contracts and the workflow pass the
 * reference, never a local path.
 *
 *   runs/<run>/manifest.json       config, seed, task-set hashes, code version, published versions (RunManifest)
 *   runs/<run>/state.json          what a resumed run continues from (TrainingRunState)
 *   runs/<run>/metrics.jsonl       one IterationMetrics line per iteration
 *   runs/<run>/batches/<name>.safetensors
 *   runs/<run>/report.md, reward.svg, staleness.svg
 *   runs/<run>/events.out.tfevents.0.agentrl   the metrics as TensorBoard scalars (tensorboard.ts)
 */

/** The reference of run `runId` in `store`. */
export const runRefOf = (store: ArtifactStore, runId: string): string => store.urlOf(`runs/${runId}`);
/** The run's records as a store of their own (its named objects are the run's files). */
export const runStore = (runRef: string): ArtifactStore => openArtifactStore(runRef);
export const batchNameOf = (name: string): string => `batches/${name}.safetensors`;

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
  /** what makes the run's policy unfit for use (an ablation's settings), in words */
  warnings: z.array(z.string()).optional(),
});
export type RunManifest = z.infer<typeof RunManifest>;

async function readParsed<S extends z.ZodType>(runRef: string, name: string, schema: S): Promise<z.infer<S> | null> {
  const bytes = await runStore(runRef).readNamed(name);
  return bytes === null ? null : parseJson(schema, bytes.toString('utf8'), `${runRef}/${name}`);
}

export const readManifest = (runRef: string): Promise<RunManifest | null> =>
  readParsed(runRef, 'manifest.json', RunManifest);

export async function writeManifest(runRef: string, manifest: RunManifest): Promise<void> {
  await runStore(runRef).writeNamed('manifest.json', `${JSON.stringify(RunManifest.parse(manifest), null, 2)}\n`);
}

export const readState = (runRef: string): Promise<TrainingRunState | null> =>
  readParsed(runRef, 'state.json', TrainingRunState);

export async function writeState(state: TrainingRunState): Promise<void> {
  await runStore(state.runRef).writeNamed('state.json', `${JSON.stringify(TrainingRunState.parse(state), null, 2)}\n`);
}

/** Every line of metrics.jsonl, parsed; [] before the first iteration. */
export async function readMetrics(runRef: string): Promise<IterationMetrics[]> {
  const bytes = await runStore(runRef).readNamed('metrics.jsonl');
  if (bytes === null) return [];
  return bytes
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line, index) => parseJson(IterationMetrics, line, `${runRef}/metrics.jsonl:${index + 1}`));
}

export async function writeMetrics(runRef: string, lines: readonly IterationMetrics[]): Promise<void> {
  await runStore(runRef).writeNamed(
    'metrics.jsonl',
    lines.length ? `${lines.map((line) => JSON.stringify(line)).join('\n')}\n` : '',
  );
}

/**
 * One of the model's own training episodes that solved its task (submitted, reward 1 and the audit's true success):
 * `solved.jsonl` of the run folder keeps them for later runs' warm starts (rejection sampling). Evaluation episodes
 * are never recorded.
 */
export const SolvedEpisode = z.object({
  episodeId: z.string(),
  /** the task folder's path */
  task: z.string(),
  iteration: z.number().int(),
  policyVersion: z.string(),
});
export type SolvedEpisode = z.infer<typeof SolvedEpisode>;

export async function readSolved(runRef: string): Promise<SolvedEpisode[]> {
  const bytes = await runStore(runRef).readNamed('solved.jsonl');
  if (bytes === null) return [];
  return bytes
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line, index) => parseJson(SolvedEpisode, line, `${runRef}/solved.jsonl:${index + 1}`));
}

export async function writeSolved(runRef: string, lines: readonly SolvedEpisode[]): Promise<void> {
  await runStore(runRef).writeNamed('solved.jsonl', lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}
