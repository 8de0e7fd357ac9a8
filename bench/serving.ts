// Benchmark (not a test): tokens per second of the embedded SmolLM2 server (onnxruntime-node, a
// key/value cache per request, concurrent requests batched) at concurrency 1 and 8, against
// PyTorch's own `generate` with a key/value cache for the same model, measured in the same run.
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

async function served(concurrency: number): Promise<number> {
  const model = await loadCausalLm(join(modelCacheDir(), 'onnx', 'smollm2-135m-instruct'), 'bench');
  const generator = new BatchingGenerator(model);
  const prompt = Array.from({ length: promptLength }, (_, index) => 100 + (index % 40000));
  await generator.submit({ prompt: prompt.slice(0, 16), maxTokens: 2, temperature: 0.8, seed: 0 });
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: concurrency }, (_, index) => generator.submit({ prompt, maxTokens: tokens, temperature: 0.8, seed: index })));
  const elapsed = (performance.now() - started) / 1000;
  return results.reduce((sum, result) => sum + result.tokenIds.length, 0) / elapsed;
}

async function main() {
  console.log(`SmolLM2-135M-Instruct, prompt ${promptLength} tokens, ${tokens} new tokens per request, float32 on the CPU`);
  const rows: [string, number, number][] = [];
  for (const concurrency of [1, 8]) {
    const baseline = torchGenerate(concurrency);
    const ours = await served(concurrency);
    rows.push([`concurrency ${concurrency}`, ours, baseline]);
    console.log(`concurrency ${concurrency}: embedded server ${ours.toFixed(1)} tokens/s, PyTorch generate ${baseline.toFixed(1)} tokens/s, ratio ${(ours / baseline).toFixed(2)}`);
  }
  const single = rows[0]![2];
  console.log(`aggregate at 8 over PyTorch generate at 1: ${(rows[1]![1] / single).toFixed(2)}x (target >= 3x); at 1: ${(rows[0]![1] / single).toFixed(2)}x (target >= 1x)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
