import registry from '../models.json';

/**
 * The models a run or an episode can name (shared/models.json, read by the Python side too):
 * `toy`, the embedded default, and Hugging Face causal LMs prepared into the model cache.
 */
export interface ModelEntry {
  kind: 'toy' | 'hf-causal-lm';
  interface: 'compact-actions' | 'chat-tools';
  /** hf-causal-lm: the chat family of shared/chat/families.json */
  tokenizer?: string;
  source?: string;
  /**
   * defaults of a training run's input that names this model, in the input's nested shape (deep-merged under
   * what the input gives: shared/contracts/run/presets.ts applyModelPresets), so that a run on a 2-core CPU
   * finishes in minutes; `budgets.maxTurns` and `sampling.chat.maxActionTokens` are also the episode command's
   */
  presets?: ModelPresets;
}

/** A partial training-run input (checked by TrainingRunInput once merged). */
export interface ModelPresets {
  budgets?: { maxTurns?: number; maxObservationBytes?: number };
  sampling?: { chat?: { maxActionTokens?: number } };
  [field: string]: unknown;
}

export const models = registry.models as unknown as Record<string, ModelEntry>;
export const modelNames = Object.keys(models);
/** The Hugging Face causal LMs (every model but the toy one). */
export const hfModelNames = modelNames.filter((name) => models[name]!.kind === 'hf-causal-lm') as [string, ...string[]];
/** The version of a model's starting weights, as its embedded server reports it before any publish. */
export const baseVersion = (name: string) => `${name}-base`;

/** The entry of a model name; an unknown name throws with the known ones. */
export function knownModel(name: string): ModelEntry {
  const entry = models[name];
  if (!entry) throw new Error(`unknown model ${JSON.stringify(name)}; known: ${modelNames.join(', ')}`);
  return entry;
}
