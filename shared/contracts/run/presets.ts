/** A real model's presets (shared/models.json) under a training run's input. */
import { hfModelNames, models } from '../../names/models';
import { servingPorts } from '../../names/serving-ports';
import { isPlainObject } from '../renamed-fields';

/**
 * A run's input with its model's presets (shared/models.json, in the input's nested shape) under
 * it: every field the input leaves out takes the preset's value (objects merge field by field), the
 * tokenizer is the model's, and the policy server defaults to the model's embedded server. Other
 * input passes as it is (the schema then judges it).
 */
export function applyModelPresets(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  // a harness calls a chat model: a harness run that names no model takes the embedded one
  const namesNoModel = raw.model === undefined || (isPlainObject(raw.model) && raw.model.name === undefined);
  const input =
    typeof raw.harness === 'string' && namesNoModel
      ? { ...raw, model: { ...(isPlainObject(raw.model) ? raw.model : {}), name: harnessModel } }
      : raw;
  const name = isPlainObject(input.model) ? input.model.name : undefined;
  if (typeof name !== 'string' || !hfModelNames.includes(name)) return raw;
  const entry = models[name]!;
  const defaults = {
    ...(entry.presets ?? {}),
    policyServer: `http://127.0.0.1:${servingPorts.model}`,
    sampling: {
      ...(entry.presets?.sampling ?? {}),
      chat: { ...(entry.presets?.sampling?.chat ?? {}), tokenizer: entry.tokenizer },
    },
  };
  return mergeUnder(defaults, input);
}

/** The model a harness run trains when its input names none: the chat model served embedded. */
export const harnessModel = 'smollm2-135m-instruct';

/** `given` over `defaults`: plain objects merge field by field, anything else given wins. */
function mergeUnder(defaults: Record<string, unknown>, given: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(given)) {
    const base = merged[key];
    merged[key] = isPlainObject(base) && isPlainObject(value) ? mergeUnder(base, value) : value;
  }
  return merged;
}
