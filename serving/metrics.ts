/**
 * Prometheus metrics of an embedded server (the toy model's policy server, a real model's server),
 * served on its own port at `GET /metrics` (prom-client): requests by route and status, their latency,
 * tokens generated (their rate is the server's tokens per second), weights loaded, and the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface ServingMetrics {
  registry: Registry;
  /** tokens generated for completions */
  generated: Counter;
  /** prompt tokens read */
  prompted: Counter;
  /** weights loaded (a publish, or a version loaded again) */
  loads: Counter;
  /** versions this server can answer for */
  versions: Gauge;
  /** wraps a request handler: times every request by route and status, and answers GET /metrics */
  instrument(
    handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  ): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
}

const routes = new Set(['/v1/completions', '/v1/models', '/v1/load_weights', '/tokenize', '/collective_rpc']);

export function createServingMetrics(server: 'policy_server' | 'model_server'): ServingMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ server });
  collectDefaultMetrics({ register: registry, prefix: 'agentrl_' });
  const seconds = new Histogram({
    name: 'agentrl_serving_request_duration_seconds',
    help: 'Wall time of a request, by route and status code',
    labelNames: ['route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const generated = new Counter({
    name: 'agentrl_serving_generated_tokens_total',
    help: 'Tokens generated for completions (rate(): tokens per second)',
    registers: [registry],
  });
  const prompted = new Counter({
    name: 'agentrl_serving_prompt_tokens_total',
    help: 'Prompt tokens of completion requests',
    registers: [registry],
  });
  const loads = new Counter({
    name: 'agentrl_serving_weight_loads_total',
    help: 'Weights loaded: publications, and versions loaded again after they were dropped',
    registers: [registry],
  });
  const versions = new Gauge({
    name: 'agentrl_serving_versions',
    help: 'Policy versions this server answers for',
    registers: [registry],
  });
  return {
    registry,
    generated,
    prompted,
    loads,
    versions,
    instrument: (handle) => async (request, response) => {
      const path = (request.url ?? '/').split('?')[0]!;
      if (request.method === 'GET' && path === '/metrics') {
        const text = await registry.metrics();
        response.writeHead(200, { 'content-type': registry.contentType }).end(text);
        return;
      }
      const route = routes.has(path) ? path : 'other';
      const end = seconds.startTimer({ route });
      response.once('finish', () => end({ status: String(response.statusCode) }));
      await handle(request, response);
    },
  };
}
