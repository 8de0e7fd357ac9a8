// Where episodes' time went: the per-phase sums an iteration's metrics carry (IterationMetrics.time.phases).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { phaseSums } from '../../shared/contracts/run-metrics';

test("an iteration's phases: the turns' activity phases summed, round trips the rest of the turns' time", () => {
  const sums = phaseSums([
    {
      timings: {
        acquireMs: 1500,
        turnsMs: 10_000,
        scoringMs: 4000,
        turnPhases: { inferenceMs: 3000, toolMs: 2000, sweepMs: 500, storeMs: 1000 },
        // the grader and the audit ran at once inside the scoring
        scoringPhases: { graderMs: 2500, auditMs: 3000 },
      },
    },
    // the sweep ran longer than the records it overlaps: only the longer of the two is inside the activity
    {
      timings: {
        acquireMs: 500,
        turnsMs: 2000,
        scoringMs: 0,
        turnPhases: { inferenceMs: 0, toolMs: 1000, sweepMs: 600, storeMs: 200 },
      },
    },
    // an episode from before phases were recorded: all of its turns' time counts as round trips
    { timings: { acquireMs: 0, turnsMs: 700, scoringMs: 300 } },
  ]);
  assert.deepEqual(sums, {
    acquireS: 2,
    inferenceS: 3,
    toolS: 3,
    sweepS: 1.1,
    storeS: 1.2,
    roundTripsS: 4 + 0.4 + 0.7,
    scoringS: 4.3,
    graderS: 2.5,
    auditS: 3,
  });
});
