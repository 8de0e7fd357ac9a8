import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { z } from 'zod';
import { seededRandom } from '../shared/math/random';
import { logSoftmax, sampleToken, type Generation } from './onnx-policy';

/**
 * A Hugging Face causal LM served with onnxruntime-node from the graph that
 * trainer/agentrl_trainer/hf_models.py exports (hf_step.LlamaStep): a key/value cache per request,
 * and concurrent requests decoded together in one forward pass (continuous batching: a request
 * joins at the next step and leaves when it stops).
 *
 * A batched step pads the shorter caches on the left and masks the padding out (`past_mask`), so
 * every row's next token sits in the last column; positions are each row's own.
 */

const GraphInfo = z.object({
  model: z.string(),
  layers: z.number().int().min(1),
  kvHeads: z.number().int().min(1),
  headDim: z.number().int().min(1),
  vocabSize: z.number().int().min(1),
  window: z.number().int().min(1),
});

export interface CausalLm {
  session: ort.InferenceSession;
  /** where the graph runs: `cuda` (onnxruntime's CUDA execution provider) or `cpu` */
  device: 'cuda' | 'cpu';
  dir: string;
  version: string;
  layers: number;
  kvHeads: number;
  headDim: number;
  vocabSize: number;
  window: number;
}

/**
 * Loads a graph folder (model.onnx, model.onnx.data, agentrl.json) as the version `version`, on the device
 * `AGENTRL_DEVICE` asks for (auto, cpu or cuda; auto: CUDA where an NVIDIA device is present). Where onnxruntime
 * cannot run it on CUDA (no device, or no CUDA execution provider in this onnxruntime-node), it says so and runs on
 * the CPU.
 */
export async function loadCausalLm(
  dir: string,
  version: string,
  wanted: string = process.env.AGENTRL_DEVICE ?? 'auto',
  warn: (line: string) => void = (line) => console.error(line),
): Promise<CausalLm> {
  for (const file of ['model.onnx', 'model.onnx.data', 'agentrl.json']) {
    if (!existsSync(join(dir, file)))
      throw new Error(`${join(dir, file)} does not exist (python -m agentrl_trainer.hf_models prepare writes it)`);
  }
  if (!['auto', 'cpu', 'cuda'].includes(wanted))
    throw new Error(`AGENTRL_DEVICE=${JSON.stringify(wanted)}: expected one of auto, cpu, cuda`);
  const info = GraphInfo.parse(JSON.parse(readFileSync(join(dir, 'agentrl.json'), 'utf8')));
  const threads = Math.max(1, availableParallelism());
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  };
  let session: ort.InferenceSession | null = null;
  let device: CausalLm['device'] = 'cpu';
  if (wanted === 'cuda' || (wanted === 'auto' && existsSync('/dev/nvidiactl'))) {
    try {
      session = await ort.InferenceSession.create(join(dir, 'model.onnx'), {
        ...options,
        executionProviders: ['cuda'],
      });
      device = 'cuda';
    } catch (error) {
      warn(
        `model server: onnxruntime cannot run on CUDA here (${(error as Error).message.split('\n')[0]}): on the CPU`,
      );
    }
  }
  session ??= await ort.InferenceSession.create(join(dir, 'model.onnx'), options);
  return {
    session,
    device,
    dir,
    version,
    layers: info.layers,
    kvHeads: info.kvHeads,
    headDim: info.headDim,
    vocabSize: info.vocabSize,
    window: info.window,
  };
}

/** One sequence's key/value cache: per layer a key and a value of (kvHeads, length, headDim). */
interface Cache {
  length: number;
  tensors: Float32Array[];
}

const emptyCache = (model: CausalLm): Cache => ({
  length: 0,
  tensors: Array.from({ length: 2 * model.layers }, () => new Float32Array(0)),
});

/**
 * Rows decoded together: each layer's key and value as one (rows, kvHeads, longest, headDim) tensor,
 * every row's positions ending at the last column (shorter rows padded on the left). While the rows
 * stay the same, a pass's outputs are the next pass's inputs as they are: nothing is copied.
 */
interface Batch {
  lengths: number[];
  longest: number;
  past: Float32Array[];
}

/** Pads rows' caches into a batch. */
function batchOf(model: CausalLm, caches: readonly Cache[]): Batch {
  const longest = Math.max(0, ...caches.map((cache) => cache.length));
  const past = Array.from({ length: 2 * model.layers }, (_, index) => {
    const data = new Float32Array(caches.length * model.kvHeads * longest * model.headDim);
    caches.forEach((cache, row) => {
      const source = cache.tensors[index]!;
      for (let head = 0; head < model.kvHeads; head++) {
        const from = head * cache.length * model.headDim;
        const to = (row * model.kvHeads + head) * longest * model.headDim + (longest - cache.length) * model.headDim;
        data.set(source.subarray(from, from + cache.length * model.headDim), to);
      }
    });
    return data;
  });
  return { lengths: caches.map((cache) => cache.length), longest, past };
}

/** The caches of some rows of a batch, their padding dropped. */
function rowsOf(model: CausalLm, batch: Batch, rows: readonly number[]): Cache[] {
  return rows.map((row) => {
    const length = batch.lengths[row]!;
    const tensors = batch.past.map((data) => {
      const kept = new Float32Array(model.kvHeads * length * model.headDim);
      for (let head = 0; head < model.kvHeads; head++) {
        const from =
          (row * model.kvHeads + head) * batch.longest * model.headDim + (batch.longest - length) * model.headDim;
        kept.set(data.subarray(from, from + length * model.headDim), head * length * model.headDim);
      }
      return kept;
    });
    return { length, tensors };
  });
}

/**
 * One forward pass over a batch whose rows each add `tokens[row]` (all rows the same count): the
 * logits of each row's last new position, and the batch extended (the graph's present tensors).
 */
async function advance(
  model: CausalLm,
  batch: Batch,
  tokens: readonly (readonly number[])[],
): Promise<{ logits: Float32Array[]; batch: Batch }> {
  const rows = batch.lengths.length;
  const added = tokens[0]!.length;
  const { longest, lengths } = batch;
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens.flat().map((id) => BigInt(id))), [rows, added]),
    position_ids: new ort.Tensor(
      'int64',
      BigInt64Array.from(
        lengths.flatMap((length) => Array.from({ length: added }, (_, offset) => BigInt(length + offset))),
      ),
      [rows, added],
    ),
    past_mask: new ort.Tensor(
      'int64',
      BigInt64Array.from(
        lengths.flatMap((length) =>
          Array.from({ length: longest }, (_, column) => (column >= longest - length ? 1n : 0n)),
        ),
      ),
      [rows, longest],
    ),
  };
  batch.past.forEach((data, index) => {
    feeds[`past_${index % 2 === 0 ? 'key' : 'value'}_${Math.floor(index / 2)}`] = new ort.Tensor('float32', data, [
      rows,
      model.kvHeads,
      longest,
      model.headDim,
    ]);
  });
  const output = await model.session.run(feeds);
  const logits = output.logits!.data as Float32Array;
  const past = batch.past.map(
    (_, index) => output[`present_${index % 2 === 0 ? 'key' : 'value'}_${Math.floor(index / 2)}`]!.data as Float32Array,
  );
  return {
    logits: lengths.map((_, row) => logits.subarray(row * model.vocabSize, (row + 1) * model.vocabSize)),
    batch: { lengths: lengths.map((length) => length + added), longest: longest + added, past },
  };
}

/** One forward pass over rows given as caches (a prefill, a score): their logits and extended caches. */
async function step(
  model: CausalLm,
  caches: readonly Cache[],
  tokens: readonly (readonly number[])[],
): Promise<{ logits: Float32Array[]; caches: Cache[] }> {
  const { logits, batch } = await advance(model, batchOf(model, caches), tokens);
  return {
    logits,
    caches: rowsOf(
      model,
      batch,
      caches.map((_, row) => row),
    ),
  };
}

export interface GenerateRequest {
  prompt: readonly number[];
  maxTokens: number;
  temperature: number;
  seed: number;
  stopTokenIds?: readonly number[];
}

/** The tempered log-probs of the prompt's continuation `ids` (no sampling): what the server would record for them. */
export async function scoreContinuation(
  model: CausalLm,
  prompt: readonly number[],
  ids: readonly number[],
  temperature: number,
): Promise<number[]> {
  let { logits, caches } = await step(model, [emptyCache(model)], [prompt]);
  const scores: number[] = [];
  for (const id of ids) {
    scores.push(logSoftmax(logits[0]!, temperature)[id]!);
    ({ logits, caches } = await step(model, caches, [[id]]));
  }
  return scores;
}

function argmax(values: Float32Array): number {
  let best = 0;
  for (let index = 1; index < values.length; index++) if (values[index]! > values[best]!) best = index;
  return best;
}

interface Active {
  request: GenerateRequest;
  random: () => number;
  cache: Cache;
  logits: Float32Array;
  generation: Generation;
  resolve: (generation: Generation) => void;
  reject: (error: Error) => void;
}

/** Prompts prefilled together in one pass at most (their activations grow with rows × length). */
const prefillRows = 8;

/** Items grouped by a key, in the order each key first appears. */
function groupBy<T>(items: readonly T[], key: (item: T) => string | number): T[][] {
  const groups = new Map<string | number, T[]>();
  for (const item of items) {
    const at = key(item);
    const group = groups.get(at);
    if (group) group.push(item);
    else groups.set(at, [item]);
  }
  return [...groups.values()];
}

/**
 * Generation with continuous batching: `submit` queues a request; one loop prefills the new
 * requests (those of one prompt length in one pass; a prompt several requests share, as a group's
 * first turn does, once) and decodes every active request in one batched pass per token. Rows
 * that share a prefill share its cache, which no pass changes. Log-probs are those of the
 * distribution sampled (logits / temperature).
 */
export class BatchingGenerator {
  private pending: Omit<Active, 'cache' | 'logits'>[] = [];
  private running = false;
  /** rows of each decode pass, and of each prefill pass, for the benchmark and the tests */
  readonly batchSizes: number[] = [];
  readonly prefillSizes: number[] = [];

  constructor(
    private model: CausalLm,
    private maxBatch = 16,
  ) {}

  submit(request: GenerateRequest): Promise<Generation> {
    if (request.prompt.length === 0) return Promise.reject(new Error('the prompt must hold at least one token'));
    if (request.prompt.length >= this.model.window)
      return Promise.reject(
        new Error(`the prompt holds ${request.prompt.length} tokens, the window is ${this.model.window}`),
      );
    return new Promise((resolve, reject) => {
      this.pending.push({
        request,
        random: seededRandom(request.seed),
        generation: { tokenIds: [], logprobs: [], finishReason: 'length' },
        resolve,
        reject,
      });
      // the loop starts on the next turn of the event loop, so requests submitted together are prefilled together
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.loop());
      }
    });
  }

  private async loop(): Promise<void> {
    this.running = true;
    const active: Active[] = [];
    // the rows of `active` decoded together (null: to be built from their caches)
    let batch: Batch | null = null;
    try {
      while (active.length > 0 || this.pending.length > 0) {
        let joined = false;
        // prompts of one length are prefilled in one pass, a prompt repeated (a group's first turn) once
        const joining = this.pending.splice(0, Math.max(0, this.maxBatch - active.length));
        for (const group of groupBy(joining, (entry) => entry.request.prompt.length)) {
          const unique = groupBy(group, (entry) => entry.request.prompt.join(','));
          const prefilled = new Set<(typeof group)[number]>();
          try {
            for (let start = 0; start < unique.length; start += prefillRows) {
              const chunk = unique.slice(start, start + prefillRows);
              const { logits, caches } = await step(
                this.model,
                chunk.map(() => emptyCache(this.model)),
                chunk.map((same) => same[0]!.request.prompt),
              );
              chunk.forEach((same, row) => {
                for (const entry of same) {
                  active.push({ ...entry, cache: caches[row]!, logits: logits[row]! });
                  prefilled.add(entry);
                }
              });
              this.prefillSizes.push(chunk.length);
              joined = true;
            }
          } catch (error) {
            for (const entry of group) if (!prefilled.has(entry)) entry.reject(error as Error);
          }
        }
        // sample each row's next token from its last logits; finished rows leave
        const survivors: Active[] = [];
        const kept: number[] = [];
        const chosen: number[] = [];
        active.forEach((entry, row) => {
          const { request, generation } = entry;
          let token: number;
          let logprob: number;
          if (request.temperature === 0) {
            token = argmax(entry.logits);
            logprob = 0;
          } else {
            const logprobs = logSoftmax(entry.logits, request.temperature);
            token = sampleToken(logprobs, entry.random);
            logprob = logprobs[token]!;
          }
          generation.tokenIds.push(token);
          generation.logprobs.push(logprob);
          const stopped = (request.stopTokenIds ?? []).includes(token);
          if (stopped) generation.finishReason = 'stop';
          const length = batch && row < batch.lengths.length ? batch.lengths[row]! : entry.cache.length;
          if (stopped || generation.tokenIds.length >= request.maxTokens || length + 1 >= this.model.window) {
            entry.resolve(generation);
          } else {
            survivors.push(entry);
            kept.push(row);
            chosen.push(token);
          }
        });
        // the batch is rebuilt only when rows joined or left; otherwise the last pass's outputs feed the next
        if (batch && (joined || survivors.length !== active.length)) {
          const batched = batch.lengths.length;
          const caches = rowsOf(
            this.model,
            batch,
            kept.filter((row) => row < batched),
          );
          kept.forEach((row, index) => {
            if (row < batched) survivors[index]!.cache = caches.shift()!;
          });
          batch = null;
        }
        active.splice(0, active.length, ...survivors);
        if (active.length === 0) {
          batch = null;
          continue;
        }
        batch ??= batchOf(
          this.model,
          active.map((entry) => entry.cache),
        );
        this.batchSizes.push(active.length);
        const advanced = await advance(
          this.model,
          batch,
          chosen.map((token) => [token]),
        );
        batch = advanced.batch;
        active.forEach((entry, row) => {
          entry.logits = advanced.logits[row]!;
        });
      }
    } catch (error) {
      for (const entry of active) entry.reject(error as Error);
      for (const entry of this.pending.splice(0)) entry.reject(error as Error);
    } finally {
      this.running = false;
    }
  }
}
