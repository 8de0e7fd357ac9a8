import { searchAttributeServerArgs } from './search-attributes';

/**
 * History-queue poll rates for the dev server. It runs one history shard, and each shard's transfer
 * queue (which hands every new workflow and activity task to matching) reads at most 20 times a second
 * by default: once the limiter's burst was spent, a workflow whose activities follow one another waited
 * about 40 ms per activity task and 30 ms per workflow task (every turn of an episode). A cluster with
 * hundreds of shards spreads that limit; the one-shard dev server needs it raised. The timer,
 * visibility and outbound queues have the same limit.
 */
export const devServerDynamicConfig: Readonly<Record<string, number>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  'history.visibilityProcessorMaxPollRPS': 1000,
  'history.outboundProcessorMaxPollRPS': 1000,
};

/** `--dynamic-config-value` arguments for `temporal server start-dev` (devServerDynamicConfig). */
export const devServerDynamicConfigArgs: string[] = Object.entries(devServerDynamicConfig).flatMap(([key, value]) => [
  '--dynamic-config-value',
  `${key}=${value}`,
]);

/** Every server argument the project's dev servers share: the search attributes and the dynamic config. */
export const devServerArgs: string[] = [...searchAttributeServerArgs, ...devServerDynamicConfigArgs];
