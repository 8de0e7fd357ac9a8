import { Context, log } from '@temporalio/activity';

/** How often a cancelled activity releases again while its work winds down: what the work made meanwhile goes too. */
const releaseIntervalMs = 250;

/**
 * Runs an activity's work; once its workflow cancels it, `release` takes back what the work holds (a running tool
 * call's processes, scoring containers), again every 250 ms until the work has ended and once after, and the activity
 * ends as cancelled. Without this the work would wait for the call's or the tests' own timeout, holding them all the
 * while. A cancellation for another reason (the worker shutting down, a heartbeat timeout) releases nothing: a retry
 * of the activity takes over what is in flight, exactly once.
 */
export async function releasedOnCancel<T>(work: () => Promise<T>, release: () => Promise<unknown>): Promise<T> {
  const context = Context.current();
  const signal = context.cancellationSignal;
  // set from the abort listener: an object, so the checks below see what the listener did
  const state: { settled: boolean; releasing: Promise<void> | null } = { settled: false, releasing: null };
  const releaseOnce = () =>
    release().then(
      () => undefined,
      (error: unknown) => {
        log.warn('releasing after a cancellation failed', { error: String(error) });
      },
    );
  const onAbort = () => {
    if (!context.cancellationDetails?.cancelRequested || state.releasing) return;
    state.releasing = (async () => {
      while (!state.settled) {
        await releaseOnce();
        if (!state.settled) await new Promise((resolveSleep) => setTimeout(resolveSleep, releaseIntervalMs));
      }
      await releaseOnce();
    })();
  };
  signal.addEventListener('abort', onAbort);
  if (signal.aborted) onAbort();
  try {
    const value = await work();
    if (!state.releasing) return value;
  } catch (error) {
    if (!state.releasing) throw error;
  } finally {
    state.settled = true;
    signal.removeEventListener('abort', onAbort);
  }
  // the work ended because its resources went (or just as they went): the activity's end is the cancellation
  await state.releasing;
  throw signal.reason;
}
