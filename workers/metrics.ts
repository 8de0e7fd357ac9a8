/**
 * Prometheus metrics of a worker process (prom-client), served on `/metrics` when a port is configured
 * (`worker.metricsPort`, AGENTRL_METRICS_PORT): every activity's duration by type and status (so
 * acquisition, tool-call and grading latencies), the activities in flight by type, and episodes by
 * outcome (counted when an episode's trajectory is written, which carries its outcome). Process
 * metrics (CPU, memory, event loop) come with prom-client's defaults.
 */
import { createServer, type Server } from 'node:http';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface WorkerMetrics {
  registry: Registry;
  interceptor: ActivityInterceptorsFactory;
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
  return { registry, interceptor };
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
