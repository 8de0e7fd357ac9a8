import { storeLocation } from '../../activities/store/open-store';
import type { LoadedConfig } from '../../workers/config';
import type { ServiceSettings } from './records';

/**
 * The S3 endpoint and region, for a process that reads and writes the store through references it is
 * handed (the trainer, the policy servers) when the store is a bucket; nothing on a folder store.
 */
export function s3Access(config: LoadedConfig, env: NodeJS.ProcessEnv = process.env): ServiceSettings {
  const { store, ...access } = storeLocation(config, env);
  return store?.startsWith('s3://') ? access : {};
}
