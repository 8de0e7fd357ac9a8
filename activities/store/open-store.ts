import { isAbsolute, resolve } from 'node:path';
import { createArtifactStore, StoreError, type ArtifactStore } from './artifact-store';
import { createS3Store, s3Location } from './s3-store';

/**
 * The artifact store a URL names: `s3://BUCKET/PREFIX` (an S3-compatible bucket; endpoint and
 * credentials from the AWS SDK's environment), `file:///PATH` or a plain folder path (relative to
 * `base`).
 */
export function openArtifactStore(url: string, base = process.cwd()): ArtifactStore {
  if (url.startsWith('s3://')) return createS3Store(url);
  if (url.startsWith('file://')) {
    const path = decodeURIComponent(url.slice('file://'.length));
    if (!isAbsolute(path)) throw new StoreError(`a file:// store URL needs an absolute path: ${url}`);
    return createArtifactStore(path);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) throw new StoreError(`unknown artifact store URL scheme: ${url}`);
  return createArtifactStore(resolve(base, url));
}

/**
 * The store of a deployment: the configured URL (`store:` / AGENTRL_STORE), else the artifacts folder.
 * Snapshots, episode records and training runs (runs/<run>/) all live in it.
 */
export function configuredStore(config: { store?: string | null; artifactsDir: string }): ArtifactStore {
  return config.store ? openArtifactStore(config.store) : createArtifactStore(config.artifactsDir);
}

/**
 * Where a deployment's artifacts go, as settings two processes can compare: the store's URL and, on S3,
 * the endpoint and region its requests reach (never the credentials). Two processes whose locations
 * are equal write to the same place.
 */
export function storeLocation(
  config: { store?: string | null; artifactsDir: string },
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const store = configuredStore(config).url;
  if (!store.startsWith('s3://')) return { store };
  const { endpoint, region } = s3Location(env);
  return { store, s3Endpoint: endpoint ?? 'AWS', s3Region: region };
}
