import registry from './models.json';

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
  /** budgets a run on a 2-core CPU finishes in minutes with */
  presets?: { maxTurns: number; maxActionTokens: number; epochs: number; minibatches: number };
}

export const models = registry.models as Record<string, ModelEntry>;
export const modelNames = Object.keys(models);

/** The entry of a model name; an unknown name throws with the known ones. */
export function knownModel(name: string): ModelEntry {
  const entry = models[name];
  if (!entry) throw new Error(`unknown model ${JSON.stringify(name)}; known: ${modelNames.join(', ')}`);
  return entry;
}
