import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { ResumeRequest } from '../../shared/contracts/episode-input';
import { episodeProgressQuery, resumeSignal } from '../../workflows/messages';
import { loadConfig, temporalConnection } from '../../workers/config';
import { positiveInt, type Command } from '../command';

export const episodeResume: Command = {
  summary: 'resume a parked episode (a resume sent before it parks is kept until it does)',
  usage: [
    'Usage: npx agentrl episode resume WORKFLOW_ID [--policy-version V] [--segment-turns N]',
    '',
    'Sends the episode the resume signal and exits 0 once the server has accepted it. A parked episode',
    'continues on any host in a fresh container restored from its snapshot; one still running keeps the',
    'resume and applies it when it parks. The Temporal UI sends the same signal: name `resume`, input',
    '{"policyVersion": "...", "segment": {"maxTurns": N}}.',
    '',
    'Options:',
    '  --policy-version V    the policy version it samples from now on      default: the newest its server serves',
    '  --segment-turns N     park again after N more turns                  default: none (it runs to its end)',
  ].join('\n'),
  options: { 'policy-version': { type: 'string' }, 'segment-turns': { type: 'string' } },
  positionals: true,
  async run(values, positionals) {
    if (positionals.length !== 1)
      throw new Error(
        `name one episode: npx agentrl episode resume WORKFLOW_ID (got ${positionals.length} argument(s))`,
      );
    const workflowId = positionals[0]!;
    const version = values['policy-version'] as string | undefined;
    if (version !== undefined && version.trim() === '')
      throw new Error('--policy-version: expected a version name, got ""');
    const segmentTurns =
      values['segment-turns'] === undefined
        ? undefined
        : positiveInt('--segment-turns', values['segment-turns'] as string);
    const request = ResumeRequest.parse({
      ...(version ? { policyVersion: version } : { newest: true }),
      segment: segmentTurns ? { maxTurns: segmentTurns } : null,
    });
    const config = loadConfig();
    const connection = await Connection.connect(temporalConnection(config));
    try {
      const client = new Client({ connection, namespace: config.temporal.namespace });
      const handle = client.workflow.getHandle(workflowId);
      let description;
      try {
        description = await handle.describe();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError)
          throw new Error(
            `no episode ${workflowId} on ${config.temporal.address} (namespace ${config.temporal.namespace})`,
          );
        throw error;
      }
      if (description.type !== 'rolloutEpisode')
        throw new Error(`${workflowId} is a ${description.type} workflow, not an episode`);
      if (description.status.name !== 'RUNNING')
        throw new Error(`episode ${workflowId} has already ended (${description.status.name.toLowerCase()})`);
      await handle.signal(resumeSignal, request);
      // a query needs a worker; without one (all stopped) the resume still waits in the workflow's history
      const progress = await Promise.race([
        handle.query(episodeProgressQuery).catch(() => null),
        new Promise<null>((resolveLater) => setTimeout(() => resolveLater(null), 3000).unref()),
      ]);
      if (progress?.phase === 'parked') console.log(`${workflowId}: resume accepted; it resumes now`);
      else if (progress && progress.segmented === false)
        console.log(
          `${workflowId}: resume accepted; it is ${progress.phase} without a segment budget, so it does not ` +
            `park and the resume changes nothing`,
        );
      else
        console.log(
          `${workflowId}: resume accepted; it is ${progress?.phase ?? 'not answering queries'}, and resumes ` +
            `when it parks`,
        );
      return 0;
    } finally {
      await connection.close();
    }
  },
};
