/**
 * Task queues derive from one base name (the queue of the episode workflows), so a test or a second
 * deployment can run beside the default one without sharing queues.
 */
export const defaultTaskQueue = 'agentrl-episodes';

/** Sandbox acquisition: any host with a Docker engine may take it. */
export function sandboxesQueue(base: string): string {
  return `${base}-sandboxes`;
}

/** The queue served only by the worker on the host that owns a container. */
export function hostQueue(base: string, hostId: string): string {
  return `${base}-host-${hostId}`;
}

/**
 * What trainingQueue appends to the base name (the Python worker reads it from shared/contracts/trainer.schema.json).
 */
export const trainingQueueSuffix = '-training';

/** The Python trainer's queue (trainer/agentrl_trainer/worker.py): a host with the accelerator serves it. */
export function trainingQueue(base: string): string {
  return `${base}${trainingQueueSuffix}`;
}
