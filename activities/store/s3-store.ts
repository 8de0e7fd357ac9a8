/**
 * The artifact store on an S3-compatible bucket (AWS SDK for JavaScript v3). Keys mirror the folder
 * backend's layout under the URL's prefix: blobs/<2 hex>/<64 hex> and the named records. An object
 * appears whole or not at all (S3 writes are atomic; a multipart upload is invisible until it
 * completes, and an aborted one is discarded); a streamed blob is uploaded under a temporary key while
 * it is hashed, then copied to its address. The endpoint and credentials come from the SDK's standard
 * environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) and are never
 * written anywhere by the store.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { parseJson } from './files';
import { blobKey, namedKey, StoreError, type ArtifactStore } from './artifact-store';

/** bucket and prefix of an s3://BUCKET/PREFIX URL */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new StoreError(`not an S3 store URL (s3://BUCKET/PREFIX): ${JSON.stringify(url)}`);
  const prefix = (match[2] ?? '').replace(/\/+$/, '');
  if (prefix.split('/').some((part) => part === '..')) throw new StoreError(`invalid S3 prefix in ${url}`);
  return { bucket: match[1]!, prefix };
}

/** Where the SDK's standard environment sends S3 requests: an endpoint (a local server), or AWS's for the region. */
export function s3Location(env: NodeJS.ProcessEnv = process.env): { endpoint: string | undefined; region: string } {
  return {
    endpoint: env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
  };
}

/** The client for the standard environment; a configured endpoint (a local server) is addressed by path. */
export function s3ClientFromEnvironment(overrides: S3ClientConfig = {}): S3Client {
  const { endpoint, region } = s3Location();
  // one client (and connection pool) per endpoint and region for the process, unless overridden
  const shared = Object.keys(overrides).length === 0 ? `${endpoint ?? ''}|${region}` : null;
  const existing = shared === null ? undefined : sharedClients.get(shared);
  if (existing) return existing;
  const client = new S3Client({
    region,
    // checksums only where the API requires them: S3-compatible servers differ on the newer defaults (a
    // multipart object's composite CRC), and a blob's bytes are checked against its address anyway
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...overrides,
  });
  if (shared !== null) sharedClients.set(shared, client);
  return client;
}
const sharedClients = new Map<string, S3Client>();

/** A missing object, as the SDK reports it (GetObject: NoSuchKey; HeadObject: NotFound, no body). */
export const notFound = (error: unknown): boolean => {
  const name = (error as { name?: string }).name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || status === 404;
};

async function bodyBytes(body: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Creates a store on `s3://BUCKET/PREFIX`; the bucket must exist. */
export function createS3Store(url: string, client: S3Client = s3ClientFromEnvironment()): ArtifactStore {
  const { bucket, prefix } = parseS3Url(url);
  const base = `s3://${bucket}${prefix ? `/${prefix}` : ''}`;
  const keyOf = (key: string) => (prefix ? `${prefix}/${key}` : key);
  const get = async (key: string, what: string): Promise<Buffer> => {
    try {
      const result = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
      return await bodyBytes(result.Body);
    } catch (error) {
      if (notFound(error)) throw new StoreError(`artifact store ${base}: no ${what}`);
      throw error;
    }
  };
  const head = async (key: string): Promise<boolean> => {
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  };
  const put = (key: string, body: Buffer) =>
    client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(key), Body: body, ContentLength: body.length }));
  const store: ArtifactStore = {
    root: base,
    url: base,
    async putBlob(data) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      const ref = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      // content-addressed: an object already there holds these very bytes
      if (!(await head(blobKey(ref)))) await put(blobKey(ref), bytes);
      return ref;
    },
    async getBlob(ref) {
      const bytes = await get(blobKey(ref), `blob ${ref}`);
      const actual = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      if (actual !== ref) throw new StoreError(`artifact store ${base}: blob ${ref} holds other bytes (${actual})`);
      return bytes;
    },
    async putJson(value) {
      return store.putBlob(JSON.stringify(value));
    },
    async getJson(ref, schema) {
      return parseJson(schema, (await store.getBlob(ref)).toString('utf8'), ref);
    },
    async writeNamed(name, data) {
      const key = namedKey(name);
      await put(key, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      return `${base}/${key}`;
    },
    async readNamed(name) {
      try {
        return await get(namedKey(name), `record ${name}`);
      } catch (error) {
        if (error instanceof StoreError) return null;
        throw error;
      }
    },
    async listNamed(name) {
      // the entries directly under a "folder", as the folder backend lists them
      const folder = `${keyOf(namedKey(name))}/`;
      const entries = new Set<string>();
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: folder, Delimiter: '/', ContinuationToken: token }),
        );
        for (const item of page.Contents ?? []) if (item.Key) entries.add(item.Key.slice(folder.length));
        for (const common of page.CommonPrefixes ?? [])
          if (common.Prefix) entries.add(common.Prefix.slice(folder.length).replace(/\/$/, ''));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return [...entries].filter((entry) => entry && !entry.startsWith('.tmp-')).sort();
    },
    hasBlob: (ref) => head(blobKey(ref)),
    existsNamed: (name) => head(namedKey(name)),
    async putBlobStream(source) {
      // uploaded (multipart past 8 MiB) under a temporary key while hashed, then copied to its address
      const temporary = `blobs/.tmp-${randomBytes(8).toString('hex')}`;
      const hash = createHash('sha256');
      const hashed = Readable.from(
        (async function* () {
          for await (const chunk of source as AsyncIterable<Buffer>) {
            hash.update(chunk);
            yield chunk;
          }
        })(),
      );
      try {
        await new Upload({
          client,
          params: { Bucket: bucket, Key: keyOf(temporary), Body: hashed },
          partSize: 8 * 1024 * 1024,
          queueSize: 2,
          leavePartsOnError: false,
        }).done();
        const ref = `sha256:${hash.digest('hex')}`;
        if (!(await head(blobKey(ref))))
          await client.send(
            new CopyObjectCommand({
              Bucket: bucket,
              Key: keyOf(blobKey(ref)),
              CopySource: `${bucket}/${encodeURIComponent(keyOf(temporary)).replace(/%2F/g, '/')}`,
            }),
          );
        return ref;
      } finally {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(temporary) })).catch(() => undefined);
      }
    },
    async getBlobStream(ref) {
      try {
        const result = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(blobKey(ref)) }));
        return Readable.from(result.Body as AsyncIterable<Uint8Array>);
      } catch (error) {
        if (notFound(error)) throw new StoreError(`artifact store ${base}: no blob ${ref}`);
        throw error;
      }
    },
    async putNamedStream(name, source) {
      // a multipart upload is invisible until it completes, and discarded if it fails
      await new Upload({
        client,
        params: { Bucket: bucket, Key: keyOf(namedKey(name)), Body: Readable.from(source) },
        partSize: 8 * 1024 * 1024,
        queueSize: 2,
        leavePartsOnError: false,
      }).done();
      return store.urlOf(name);
    },
    async getNamedStream(name) {
      try {
        const result = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(namedKey(name)) }));
        return Readable.from(result.Body as AsyncIterable<Uint8Array>);
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    urlOf: (name) => `${base}/${namedKey(name)}`,
    pathOf(name) {
      namedKey(name);
      throw new StoreError(`artifact store ${base}: ${name} has no local path (an S3 store hands out references)`);
    },
  };
  return store;
}
