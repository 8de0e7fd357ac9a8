import type { Client } from '@temporalio/client';
import { CallRecord, gatewayReply, requestDigest } from '../activities/gateway/calls';
import type { ArtifactStore } from '../activities/store/artifact-store';
import { createGateway, type GatewayLimits, type GatewayRequestTiming } from '../serving/gateway/server';
import { modelCallUpdate } from '../workflows/messages';

/**
 * The model gateway of a sandbox host's worker: each call goes to its episode's workflow as the `modelCall` update
 * (the durable step), and the reply is read from the call's record.
 */
export function createWorkerGateway(
  client: Client,
  store: ArtifactStore,
  options: { limits?: Partial<GatewayLimits>; onRequest?: (timing: GatewayRequestTiming) => void } = {},
) {
  return createGateway({
    store,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    async callModel(call) {
      let answer;
      try {
        answer = await client.workflow.getHandle(call.workflowId).executeUpdate(modelCallUpdate, {
          args: [{ session: call.session, requestRef: call.requestRef, digest: requestDigest(call.request) }],
          updateId: call.updateId,
        });
      } catch (error) {
        // a rejected update (not this episode's live session, the episode has ended) or a workflow that is gone
        const message =
          error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
        return {
          refused: {
            status: 409,
            type: 'invalid_request_error',
            message: `the episode does not take this call: ${message}`,
          },
        };
      }
      if ('refused' in answer) return answer;
      const record = await store.getJson(answer.callRef, CallRecord);
      return { reply: gatewayReply(record, call.request, Math.floor(Date.now() / 1000)) };
    },
  });
}
