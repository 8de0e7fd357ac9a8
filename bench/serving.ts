// Benchmark (not a test): tokens per second of the embedded SmolLM2 server (onnxruntime-node, a
// key/value cache per request, concurrent requests batched) at concurrency 1 and 8, against
// PyTorch's own `generate` with a key/value cache for the same model, measured in the same run; and
// the trainer's seconds per 1,000 trained tokens, against a forward pass over the same batch.
//   npm run bench:serving   (BENCH_TOKENS=64 BENCH_PROMPT=400 to change the sizes)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { modelCacheDir } from '../activities/policies/chat/chat-tokenizer';
import { BatchingGenerator, loadCausalLm } from '../serving/causal-lm';
import { projectRoot } from '../workers/config';

const tokens = Number(process.env.BENCH_TOKENS ?? 64);
const promptLength = Number(process.env.BENCH_PROMPT ?? 400);

function torchGenerate(batch: number): number {
  const script = `
import time, torch, sys
sys.path.insert(0, ${JSON.stringify(join(projectRoot, 'trainer'))})
from agentrl_trainer import hf_models
torch.set_num_threads(max(1, torch.get_num_threads()))
model = hf_models.load_model(hf_models.weights_dir("smollm2-135m-instruct"))
prompt = torch.arange(${promptLength}).remainder(40000)[None].repeat(${batch}, 1) + 100
with torch.no_grad():
    model.generate(prompt[:, :16], max_new_tokens=2, do_sample=True, temperature=0.8, top_k=0, min_new_tokens=2, pad_token_id=2)
    started = time.perf_counter()
    out = model.generate(prompt, max_new_tokens=${tokens}, min_new_tokens=${tokens}, do_sample=True, temperature=0.8, top_k=0, top_p=1.0, use_cache=True, pad_token_id=2)
    elapsed = time.perf_counter() - started
print((out.shape[1] - ${promptLength}) * ${batch} / elapsed)
`;
  const result = spawnSync(join(projectRoot, '.venv', 'bin', 'python'), ['-c', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`PyTorch generate failed: ${result.stderr.slice(-2000)}`);
  return Number(result.stdout.trim().split('\n').at(-1));
}

/**
 * A policy-gradient step of the real model (train_on_batch through CausalLmPolicy) and a no-grad forward pass over the
 * same batch.
 */
function trainerStep(): { stepS: number; forwardS: number; rowTokens: number; trainedTokens: number } {
  const script = `
import json, time, torch, sys
sys.path.insert(0, ${JSON.stringify(join(projectRoot, 'trainer'))})
from agentrl_trainer import hf_models
from agentrl_trainer.step_config import StepConfig
from agentrl_trainer.train_step import sequence_logprobs, train_on_batch
torch.manual_seed(0)
policy = hf_models.CausalLmPolicy(hf_models.load_model(hf_models.weights_dir("smollm2-135m-instruct")))
rows, length, generated = 2, ${promptLength} + ${tokens}, ${tokens}
ids = torch.randint(100, 40000, (rows, length))
mask = torch.zeros(rows, length); mask[:, -generated:] = 1
with torch.no_grad():
    started = time.perf_counter()
    behaviour = sequence_logprobs(policy, ids, 1.0)
    forward = time.perf_counter() - started
batch = {"input_ids": ids, "loss_mask": mask, "advantages": torch.tensor([1.0, -1.0]),
         "behaviour_logprobs": behaviour * mask}
optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-5)
started = time.perf_counter()
train_on_batch(policy, optimizer, batch, StepConfig(temperature=1.0))
step = time.perf_counter() - started
print(json.dumps({"stepS": step, "forwardS": forward, "rowTokens": rows * length, "trainedTokens": int(mask.sum())}))
`;
  const result = spawnSync(join(projectRoot, '.venv', 'bin', 'python'), ['-c', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the trainer step failed: ${result.stderr.slice(-2000)}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
    stepS: number;
    forwardS: number;
    rowTokens: number;
    trainedTokens: number;
  };
}

/**
 * Aggregate tokens per second of `concurrency` requests submitted together; `shared`: one prompt for all (a group's
 * first turn), else each its own.
 */
async function served(concurrency: number, shared = false): Promise<number> {
  const model = await loadCausalLm(join(modelCacheDir(), 'onnx', 'smollm2-135m-instruct'), 'bench');
  const generator = new BatchingGenerator(model);
  const promptOf = (request: number) =>
    Array.from({ length: promptLength }, (_, index) => 100 + ((index + (shared ? 0 : request * 7)) % 40000));
  await generator.submit({ prompt: promptOf(0).slice(0, 16), maxTokens: 2, temperature: 0.8, seed: 0 });
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: concurrency }, (_, index) =>
      generator.submit({ prompt: promptOf(index), maxTokens: tokens, temperature: 0.8, seed: index }),
    ),
  );
  const elapsed = (performance.now() - started) / 1000;
  return results.reduce((sum, result) => sum + result.tokenIds.length, 0) / elapsed;
}

async function main() {
  console.log(
    `SmolLM2-135M-Instruct, prompt ${promptLength} tokens, ${tokens} new tokens per request, float32 on the CPU`,
  );
  const rows: [string, number, number][] = [];
  for (const concurrency of [1, 8]) {
    const baseline = torchGenerate(concurrency);
    const ours = await served(concurrency);
    rows.push([`concurrency ${concurrency}`, ours, baseline]);
    console.log(
      `concurrency ${concurrency}: embedded server ${ours.toFixed(1)} tokens/s, PyTorch generate ` +
        `${baseline.toFixed(1)} tokens/s, ratio ${(ours / baseline).toFixed(2)}`,
    );
  }
  const single = rows[0]![2];
  const group = await served(8, true);
  console.log(
    `concurrency 8 sharing one prompt (a group's first turn, prefilled once): embedded server ` +
      `${group.toFixed(1)} tokens/s`,
  );
  console.log(
    `aggregate at 8 over PyTorch generate at 1: ${(rows[1]![1] / single).toFixed(2)}x with 8 prompts, ` +
      (`${(group / single).toFixed(2)}x with one shared (target >= 3x); at 1: ` +
        `${(rows[0]![1] / single).toFixed(2)}x (target >= 1x)`),
  );
  const trainer = trainerStep();
  console.log(
    `trainer: ${((trainer.stepS / trainer.trainedTokens) * 1000).toFixed(1)} s per 1,000 trained tokens ` +
      `(${((trainer.stepS / trainer.rowTokens) * 1000).toFixed(1)} s per 1,000 row tokens; ` +
      (`2 rows of ${trainer.rowTokens / 2}, ${trainer.trainedTokens} trained); the step takes ` +
        `${(trainer.stepS / trainer.forwardS).toFixed(2)}x a forward pass over the same batch`),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
