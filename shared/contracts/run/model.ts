/** A training run's model: the embedded toy policy by its size, or a Hugging Face causal LM by name. */
import { z } from 'zod';
import { hfModelNames, modelNames, models } from '../../names/models';
import { isPlainObject } from '../renamed-fields';

/**
 * The embedded policy: a small causal transformer over the shared tokenizer's 404 ids, with ALiBi
 * attention biases on top of learned positions (the decision after a check reads the exit status a
 * few tokens back, which learned absolute positions alone make hard to attend to).
 */
export const defaultModelConfig = {
  vocabSize: 404,
  context: 512,
  dModel: 64,
  nLayers: 2,
  nHeads: 4,
  alibi: true,
} as const;

/** The toy model and its size. */
const ToyRunModel = z
  .object({
    name: z.literal('toy'),
    vocabSize: z.number().int().min(1).default(defaultModelConfig.vocabSize),
    context: z.number().int().min(16).default(defaultModelConfig.context),
    dModel: z.number().int().min(1).default(defaultModelConfig.dModel),
    nLayers: z.number().int().min(1).default(defaultModelConfig.nLayers),
    nHeads: z.number().int().min(1).default(defaultModelConfig.nHeads),
    /** ALiBi attention biases (each head favours recent tokens at its own rate) */
    alibi: z.boolean().default(defaultModelConfig.alibi),
  })
  .strict();
const toyModelFields = Object.keys(ToyRunModel.shape);
export type ToyModel = z.infer<typeof ToyRunModel>;

/** A Hugging Face causal LM of shared/models.json: its size, tokenizer and weights are the model cache's. */
const HfRunModel = z.object({ name: z.enum(hfModelNames) }).strict();

/**
 * A run's model. An unknown name, and a field the named model does not take, are refused with the
 * known names and the fields it takes; no name is the toy model (runs from before the name).
 */
export const RunModel = z.preprocess(
  (raw, context) => {
    if (raw === undefined) return { name: 'toy' };
    if (!isPlainObject(raw)) return raw;
    const given = raw;
    const name = given.name ?? 'toy';
    if (typeof name !== 'string' || !modelNames.includes(name)) {
      context.addIssue({
        code: 'custom',
        path: ['name'],
        message: `unknown model ${JSON.stringify(name)}; known: ${modelNames.join(', ')}`,
      });
      return z.NEVER;
    }
    const fields = name === 'toy' ? toyModelFields : ['name'];
    const unknown = Object.keys(given).filter((key) => !fields.includes(key));
    if (unknown.length > 0) {
      for (const key of unknown) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message:
            `the model ${name} takes no field ${JSON.stringify(key)}; it takes ` +
            `${fields.join(', ')}${name === 'toy' ? '' : " (a real model's size is fixed by its weights)"}`,
        });
      }
      return z.NEVER;
    }
    return { ...given, name };
  },
  z.discriminatedUnion('name', [ToyRunModel, HfRunModel]),
);
export type RunModel = z.infer<typeof RunModel>;

/** The toy model's name and size when the run trains it, else null. */
export function toyModelOf(input: { model: RunModel }): ToyModel | null {
  return input.model.name === 'toy' ? (input.model as ToyModel) : null;
}

/** The model of a run when it is a Hugging Face causal LM (its name and its entry of shared/models.json), else null. */
export function hfModelOf(input: { model: RunModel }): { name: string; tokenizer: string } | null {
  if (input.model.name === 'toy') return null;
  const entry = models[input.model.name]!;
  return { name: input.model.name, tokenizer: entry.tokenizer! };
}
