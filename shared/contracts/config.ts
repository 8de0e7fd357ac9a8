import { z } from 'zod';
import { EpisodeBudgets, EpisodeTimeouts } from './episode-input';

/** TEST ONLY: the checker's defences a test may switch off (grading.unsafeDisable). */
export const unsafeDefences = [
  'twins',
  'isolated-audit',
  'report-channel',
  'audit-protocol',
  'verifier-channel',
  'verifier-report',
] as const;
export type UnsafeDefence = (typeof unsafeDefences)[number];

/** How tool calls reach a sandbox (`sandbox.executor`). */
export const SandboxExecutors = ['server', 'exec'] as const;
export type SandboxExecutor = (typeof SandboxExecutors)[number];

/** `temporal.yaml`: everything a worker or the CLI needs; environment variables override it. */
export const AgentrlConfig = z
  .object({
    temporal: z
      .object({
        address: z.string().default('127.0.0.1:7233'),
        namespace: z.string().default('default'),
        uiPort: z.number().int().positive().default(8233),
      })
      .strict()
      .default({ address: '127.0.0.1:7233', namespace: 'default', uiPort: 8233 }),
    worker: z
      .object({
        maxConcurrentActivities: z.number().int().positive().default(16),
        maxConcurrentWorkflowTasks: z.number().int().positive().default(16),
        /** how often the worker's reaper looks for containers of closed episodes */
        reapIntervalMs: z.number().int().positive().default(60_000),
        /** serve Prometheus metrics on this port (workers/metrics.ts); absent: none */
        metricsPort: z.number().int().min(0).max(65535).optional(),
        /** serve the Temporal SDK's own runtime metrics (its telemetry options) on this port; absent: none */
        sdkMetricsPort: z.number().int().min(1).max(65535).optional(),
        /**
         * the most episode sandboxes this host runs at once (workers/host-capacity.ts): a full host takes no
         * acquisitions and the other hosts take them; absent: no cap
         */
        maxSandboxes: z.number().int().min(1).optional(),
      })
      .strict()
      .default({ maxConcurrentActivities: 16, maxConcurrentWorkflowTasks: 16, reapIntervalMs: 60_000 }),
    sandbox: z
      .object({
        image: z.string().default('agentrl-base:latest'),
        memoryMb: z.number().int().min(64).default(1024),
        cpus: z.number().positive().default(1),
        pidsLimit: z.number().int().min(16).default(256),
        /** size of the repository volume: the agent's disk writes */
        workDiskMb: z.number().int().min(8).default(256),
        tmpDiskMb: z.number().int().min(8).default(64),
        uid: z.number().int().min(1).default(1000),
        /**
         * how tool calls reach the sandbox: `server`, the sandbox's long-lived executor on a unix socket
         * (activities/sandbox/executor.ts; needs the worker on the Docker host, else calls fall back to exec);
         * `exec`, one `docker exec` of the runner per call (the earlier path)
         */
        executor: z.enum(SandboxExecutors).default('server'),
        /**
         * with the executor: a call that is one simple `python3 -c ...`/`python3 -m ...` command (the compact actions'
         * `run`, `locate`, ..., a plain `python3 -m pytest -q`) runs in the sandbox's warm interpreter, pytest
         * imported once (sandbox/warm-python.py), wherever its result cannot differ from a cold start
         */
        warmPython: z.boolean().default(true),
        /**
         * the warm pool (activities/sandbox/pool.ts): agent containers made and seeded ahead of need, per recipe
         * (image,
         * starting repository, limits) asked for within `idleS`. Off by default (`size: 0`): a claimed pool container
         * keeps the pool's labels (Docker's labels cannot change), so tools that find an episode's container by its
         * workflow label must read its claim record instead
         */
        pool: z
          .object({
            /** containers kept ready per recipe on this host */
            size: z.number().int().min(0).default(0),
            /** at most this many ready or being made on this host, all recipes together */
            maxContainers: z.number().int().min(1).default(64),
            /** containers made at once in the background */
            fillConcurrency: z.number().int().min(1).default(2),
            /** refills start once no recipe was asked for in this many ms (the host's CPU goes to episodes first) */
            refillDelayMs: z.number().int().min(0).default(1000),
            /** a recipe nobody asked for in this many seconds is dropped, with its containers */
            idleS: z.number().int().min(1).default(600),
          })
          .strict()
          .default({ size: 0, maxContainers: 64, fillConcurrency: 2, refillDelayMs: 1000, idleS: 600 }),
      })
      .strict()
      .default({
        image: 'agentrl-base:latest',
        memoryMb: 1024,
        cpus: 1,
        pidsLimit: 256,
        workDiskMb: 256,
        tmpDiskMb: 64,
        uid: 1000,
        executor: 'server',
        warmPython: true,
        pool: { size: 0, maxContainers: 64, fillConcurrency: 2, refillDelayMs: 1000, idleS: 600 },
      }),
    grading: z
      .object({
        /** reuse the test results of byte-identical graded trees (deterministic tests only) */
        cacheResults: z.boolean().default(true),
        /**
         * TEST ONLY: defences to switch off, so that a test can show an attack succeeds without them
         * ("twins": no canary twins; "isolated-audit": true success from the in-process tests only;
         * "report-channel": the grade report written with functions the tested code can replace;
         * "audit-protocol": an audit outcome carrying a value and a raise accepted; "verifier-channel": a Harbor
         * reward file read as Docker's archive gives it, unchecked; "verifier-report": a Harbor verifier's value taken
         * without the grade harness's run of its tests). Never set it for training.
         */
        unsafeDisable: z.array(z.enum(unsafeDefences)).default([]),
      })
      .strict()
      .default({ cacheResults: true, unsafeDisable: [] }),
    stateDir: z.string().default('.agentrl'),
    artifactsDir: z.string().default('.agentrl/artifacts'),
    /**
     * where task and policy snapshots, episode records, parked trees and training runs (runs/<run>/:
     * batches, checkpoints, policies, metrics, reports) go: `s3://BUCKET/PREFIX` (an S3-compatible bucket;
     * endpoint and credentials from the AWS SDK's environment, never from here) or a folder (default:
     * artifactsDir).
     */
    store: z
      .string()
      .regex(/^(s3:\/\/|file:\/\/\/)/, 'an s3://BUCKET/PREFIX or file:///PATH URL')
      .optional(),
    defaults: z
      .object({
        episode: z
          .object({
            budgets: EpisodeBudgets.partial().optional(),
            timeouts: EpisodeTimeouts.partial().optional(),
            checker: z.enum(['strict', 'weak']).optional(),
          })
          .strict()
          .default({}),
      })
      .strict()
      .default({ episode: {} }),
  })
  .strict();
export type AgentrlConfig = z.infer<typeof AgentrlConfig>;
