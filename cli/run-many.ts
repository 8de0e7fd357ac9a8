/** Runs jobs with at most `concurrency` in flight; results keep the jobs' order, a failure is kept as its Error. */
export async function runMany<T>(
  count: number,
  concurrency: number,
  job: (index: number) => Promise<T>,
  onDone?: (index: number, done: number) => void,
): Promise<(T | Error)[]> {
  const results = new Array<T | Error>(count);
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      try {
        results[index] = await job(index);
      } catch (error) {
        results[index] = error instanceof Error ? error : new Error(String(error));
      }
      onDone?.(index, ++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}
