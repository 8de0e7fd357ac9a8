/**
 * Prometheus metrics of a worker process (prom-client), served on `/metrics` when a port is configured
 * (`worker.metricsPort`, AGENTRL_METRICS_PORT): every activity's duration by type and status (so
 * acquisition, tool-call and grading latencies), the activities in flight by type, and episodes by
 * outcome (counted when an episode's trajectory is written, which carries its outcome), the bytes
 * moved through the artifact store and its errors by backend. Process
 * metrics (CPU, memory, event loop) come with prom-client's defaults.
 */
import { createServer, type Server } from 'node:http';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { Readable, Transform } from 'node:stream';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ArtifactStore } from '../activities/store/artifact-store';
import { parseJson } from '../activities/store/files';

export interface WorkerMetrics {
  registry: Registry;
  interceptor: ActivityInterceptorsFactory;
  /** the store, counting the bytes it moves and the errors it meets (agentrl_store_*) */
  observeStore: (store: ArtifactStore) => ArtifactStore;
  /** gauges read when scraped: this host's running sandboxes, and the deployment's parked episodes */
  watch(read: {
    sandboxes(): Promise<number>;
    parked(): Promise<number>;
    /** the warm pool's counts (activities/sandbox/pool.ts), when the worker keeps one */
    pool?: () => { ready: number; claimed: number; missed: number };
  }): void;
}

/** The metrics of one worker process (one registry: several workers of the process share it). */
export function createWorkerMetrics(labels: Record<string, string> = {}): WorkerMetrics {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry, prefix: 'agentrl_' });
  const duration = new Histogram({
    name: 'agentrl_activity_duration_seconds',
    help: 'Wall time of an activity attempt, by activity type and status (ok, failed)',
    labelNames: ['activity', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'agentrl_activities_in_flight',
    help: 'Activity attempts running now, by activity type (acquireSandbox: containers being started)',
    labelNames: ['activity'] as const,
    registers: [registry],
  });
  const episodes = new Counter({
    name: 'agentrl_episodes_total',
    help: 'Episodes finished on this worker, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const turnPhases = new Histogram({
    name: 'agentrl_turn_phase_seconds',
    help:
      "Where a turn's activity spent its time, by phase: inference, tool (the call in the sandbox), sweep (of the " +
      "agent's processes, overlapping store), store (the turn's records)",
    labelNames: ['phase'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [registry],
  });
  const scoringPhases = new Histogram({
    name: 'agentrl_scoring_phase_seconds',
    help:
      "Inside an episode's scoring: the strict grader's run with its twins (grader) and the audit's (audit), each in " +
      'its own fresh container, at once; 0 when the grading cache answered',
    labelNames: ['phase'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [registry],
  });
  const interceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      async execute(input, next) {
        const activity = ctx.info.activityType;
        const end = duration.startTimer({ activity });
        inFlight.inc({ activity });
        try {
          const result = await next(input);
          end({ status: 'ok' });
          const outcome = (input.args[0] as { outcome?: unknown } | undefined)?.outcome;
          if (activity === 'writeTrajectory' && typeof outcome === 'string') episodes.inc({ outcome });
          const phases = (result as { phases?: Record<string, number> } | undefined)?.phases;
          if ((activity === 'takeTurn' || activity === 'scoreSubmission') && phases)
            for (const [phase, ms] of Object.entries(phases))
              (activity === 'takeTurn' ? turnPhases : scoringPhases).observe(
                { phase: phase.replace(/Ms$/, '') },
                ms / 1000,
              );
          return result;
        } catch (error) {
          end({ status: 'failed' });
          throw error;
        } finally {
          inFlight.dec({ activity });
        }
      },
    },
  });
  const storeBytes = new Counter({
    name: 'agentrl_store_bytes_total',
    help: 'Bytes moved through the artifact store, by backend (file, s3) and direction (put, get)',
    labelNames: ['backend', 'direction'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'agentrl_store_errors_total',
    help: 'Artifact store operations that failed, by backend and operation (a missing object asked for included)',
    labelNames: ['backend', 'operation'] as const,
    registers: [registry],
  });
  const observeStore = (store: ArtifactStore): ArtifactStore => {
    const backend = store.url.startsWith('s3://') ? 's3' : 'file';
    const count = (direction: 'put' | 'get', bytes: number) => storeBytes.inc({ backend, direction }, bytes);
    const size = (data: Buffer | string) => (typeof data === 'string' ? Buffer.byteLength(data) : data.length);
    const counted = (direction: 'put' | 'get') =>
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          count(direction, chunk.length);
          done(null, chunk);
        },
      });
    const guard =
      <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        try {
          return await call(...args);
        } catch (error) {
          storeErrors.inc({ backend, operation });
          throw error;
        }
      };
    return {
      ...store,
      root: store.root,
      url: store.url,
      putBlob: guard('put', async (data) => {
        const ref = await store.putBlob(data);
        count('put', size(data));
        return ref;
      }),
      getBlob: guard('get', async (ref) => {
        const bytes = await store.getBlob(ref);
        count('get', bytes.length);
        return bytes;
      }),
      putJson: guard('put', async (value) => {
        const text = JSON.stringify(value);
        const ref = await store.putBlob(text);
        count('put', Buffer.byteLength(text));
        return ref;
      }),
      getJson: guard('get', async (ref, schema) => {
        const bytes = await store.getBlob(ref);
        count('get', bytes.length);
        return parseJson(schema, bytes.toString('utf8'), ref);
      }),
      writeNamed: guard('put', async (name, data) => {
        const where = await store.writeNamed(name, data);
        count('put', size(data));
        return where;
      }),
      readNamed: guard('get', async (name) => {
        const bytes = await store.readNamed(name);
        if (bytes) count('get', bytes.length);
        return bytes;
      }),
      listNamed: guard('list', (prefix) => store.listNamed(prefix)),
      hasBlob: guard('head', (ref) => store.hasBlob(ref)),
      existsNamed: guard('head', (name) => store.existsNamed(name)),
      putBlobStream: guard('put', (source) => store.putBlobStream(Readable.from(source).pipe(counted('put')))),
      getBlobStream: guard('get', async (ref) => (await store.getBlobStream(ref)).pipe(counted('get'))),
      putNamedStream: guard('put', (name, source) =>
        store.putNamedStream(name, Readable.from(source).pipe(counted('put'))),
      ),
      getNamedStream: guard('get', async (name) => (await store.getNamedStream(name))?.pipe(counted('get')) ?? null),
      urlOf: (name) => store.urlOf(name),
      pathOf: (name) => store.pathOf(name),
    };
  };
  const watch: WorkerMetrics['watch'] = (read) => {
    new Gauge({
      name: 'agentrl_sandboxes_running',
      help: "Episode sandboxes running on this worker's host (its Docker daemon), read when scraped",
      registers: [registry],
      async collect() {
        this.set(await read.sandboxes().catch(() => Number.NaN));
      },
    });
    const pool = read.pool;
    if (pool) {
      new Gauge({
        name: 'agentrl_sandbox_pool_ready',
        help: 'Warm sandboxes ready to be claimed on this worker (activities/sandbox/pool.ts)',
        registers: [registry],
        collect() {
          this.set(pool().ready);
        },
      });
      new Gauge({
        name: 'agentrl_sandbox_pool_acquisitions',
        help: 'Acquisitions since the worker started, by whether the warm pool had a sandbox (claimed) or not (missed)',
        labelNames: ['outcome'],
        registers: [registry],
        collect() {
          const counts = pool();
          this.set({ outcome: 'claimed' }, counts.claimed);
          this.set({ outcome: 'missed' }, counts.missed);
        },
      });
    }
    new Gauge({
      name: 'agentrl_episodes_parked',
      help: 'Episodes of this deployment parked and waiting for a resume (Temporal visibility), read when scraped',
      registers: [registry],
      async collect() {
        this.set(await read.parked().catch(() => Number.NaN));
      },
    });
  };
  return { registry, interceptor, observeStore, watch };
}

/** Serves the registry on http://HOST:PORT/metrics; resolves once listening, with the bound port. */
export async function serveMetrics(
  registry: Registry,
  port: number,
  host = '127.0.0.1',
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end('not found: the metrics are at /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: Error) => response.writeHead(500).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolveListen());
  });
  return { server, port: (server.address() as { port: number }).port };
}
