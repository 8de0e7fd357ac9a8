/**
 * Reading: the agent's tree out of its container through Docker's archive API (nothing of the agent's runs
 * while it is read), and the trees the graders run on: the graded tree (protected paths restored, hidden tests
 * added), the tree as the agent left it (the weak checker's) and the candidate's code alone (the audit's).
 */
import type Dockerode from 'dockerode';
import { ApplicationFailure } from '@temporalio/activity';
import type { AgentrlConfig } from '../../shared/contracts/config';
import type { TamperFinding } from '../../shared/contracts/episode';
import { ErrorTypes } from '../../shared/names/errors';
import { protectedPathMatcher } from '../../shared/paths/protected-paths';
import type { TaskSnapshot } from '../../shared/contracts/task-spec';
import { decodeFiles } from '../sandbox/container';
import { ArchiveTooLargeError, isNotFound } from '../sandbox/docker';
import { sweepAgentProcesses } from '../sandbox/sweep';
import { dropPathConflicts, exportChanges, type FileChange } from './changes';

/** The agent's tree as the checker read it. */
export interface AgentTree {
  pristine: Record<string, Buffer>;
  changes: FileChange[];
  tree: ReadonlyMap<string, { content: Buffer }>;
  /** set when the tree is beyond what the grader reads: nothing of it is analysed or graded, and it scores 0 */
  overLimits: TamperFinding[];
}

/** Reads the agent's changes against the pristine repository; a sandbox that stopped is an environment failure. */
export async function readAgentTree(
  docker: Dockerode,
  sandbox: AgentrlConfig['sandbox'],
  containerName: string,
  snapshot: TaskSnapshot,
  protectedPaths: readonly string[],
): Promise<AgentTree> {
  const pristine = decodeFiles(snapshot.repo);
  const agent = docker.getContainer(containerName);
  await ensureRunning(agent);
  // nothing of the agent's runs while its tree is read
  await sweepAgentProcesses(docker, containerName, sandbox.uid);
  try {
    const exported = await exportChanges(
      agent,
      pristine,
      protectedPathMatcher(protectedPaths),
      (sandbox.workDiskMb + 16) * 1024 * 1024,
    );
    return { ...exported, pristine };
  } catch (error) {
    if (!(error instanceof ArchiveTooLargeError)) throw error;
    // only sparse files can claim more than the volume holds: the agent's doing, scored 0
    return {
      pristine,
      changes: [],
      tree: new Map(),
      overLimits: [{ kind: 'over_limits', path: '.', detail: error.message }],
    };
  }
}

/**
 * The graded tree: the pristine repository, plus the agent's changes outside protected paths (and not symlinks),
 * plus the hidden tests; paths that clash with a kept file or folder are dropped (and listed).
 */
export function gradedTree(
  snapshot: TaskSnapshot,
  read: AgentTree,
): { graded: Record<string, Buffer>; dropped: string[] } {
  const graded: Record<string, Buffer> = { ...read.pristine };
  for (const change of read.changes) {
    if (change.protected || change.symlink) continue;
    applyChange(graded, change, read.tree);
  }
  Object.assign(graded, decodeFiles(snapshot.hidden));
  const dropped = dropPathConflicts(graded, new Set(read.changes.map((change) => change.path)));
  return { graded, dropped };
}

/** The tree as the agent left it, protected paths included (what the weak checker grades), without symlinks. */
export function treeAsLeft(read: AgentTree): Record<string, Buffer> {
  const files: Record<string, Buffer> = { ...read.pristine };
  for (const change of read.changes) if (!change.symlink) applyChange(files, change, read.tree);
  dropPathConflicts(files, new Set(read.changes.map((change) => change.path)));
  return files;
}

/** The graded tree without the hidden tests: what the isolated audit imports the candidate's code from. */
export function candidateTree(graded: Record<string, Buffer>, snapshot: TaskSnapshot): Record<string, Buffer> {
  const files = { ...graded };
  for (const path of Object.keys(snapshot.hidden)) delete files[path];
  return files;
}

/** The files the agent added or changed (not deleted, not symlinks), with their content. */
export function changedFiles(read: AgentTree): { path: string; content: Buffer }[] {
  return read.changes
    .filter((change) => change.status !== 'deleted' && !change.symlink && read.tree.has(change.path))
    .map((change) => ({ path: change.path, content: read.tree.get(change.path)!.content }));
}

function applyChange(
  files: Record<string, Buffer>,
  change: FileChange,
  tree: ReadonlyMap<string, { content: Buffer }>,
): void {
  if (change.status === 'deleted') delete files[change.path];
  else files[change.path] = tree.get(change.path)!.content;
}

/** The agent's container must still run: one that is gone is an environment failure, not the grader's. */
async function ensureRunning(container: Dockerode.Container): Promise<void> {
  try {
    if ((await container.inspect()).State.Running) return;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  throw ApplicationFailure.nonRetryable('the sandbox stopped before scoring', ErrorTypes.sandboxCrash);
}
