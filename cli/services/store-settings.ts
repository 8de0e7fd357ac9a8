import { configuredStore } from '../../activities/store/open-store';
import { s3Location } from '../../activities/store/s3-store';
import type { LoadedConfig } from '../../workers/config';
import type { ServiceSettings } from './records';

/**
 * Where a process's artifacts go: the store's URL (a bucket and prefix, or a folder) and, on S3, the
 * endpoint and region its requests reach. Credentials are not settings: they are never recorded.
 */
export function storeSettings(config: LoadedConfig, env: NodeJS.ProcessEnv = process.env): ServiceSettings {
  return { store: configuredStore(config).url, ...s3Access(config, env) };
}

/**
 * The S3 endpoint and region, for a process that reads and writes the store through references it is
 * handed (the trainer, the policy servers) when the store is a bucket; nothing on a folder store.
 */
export function s3Access(config: LoadedConfig, env: NodeJS.ProcessEnv = process.env): ServiceSettings {
  if (!config.store?.startsWith('s3://')) return {};
  const { endpoint, region } = s3Location(env);
  return { s3Endpoint: endpoint ?? 'AWS', s3Region: region };
}
