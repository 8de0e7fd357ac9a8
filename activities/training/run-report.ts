import type { IterationMetrics } from '../../shared/contracts/run-metrics';
import { runStore } from './run-records';

interface Series {
  name: string;
  colour: string;
  dashed: boolean;
  points: { x: number; y: number }[];
}

/** A line chart of values in [0, yMax] per iteration (or step), as standalone SVG. */
export function lineChart(
  title: string,
  series: readonly Series[],
  options: { yMax?: number; xLabel?: string } = {},
): string {
  const yMax = options.yMax ?? 1;
  const width = 640;
  const height = 320;
  const margin = { left: 48, right: 160, top: 32, bottom: 40 };
  const xs = series.flatMap((line) => line.points.map((point) => point.x));
  const xMax = Math.max(1, ...xs);
  const px = (x: number) => margin.left + (x / xMax) * (width - margin.left - margin.right);
  const py = (y: number) => height - margin.bottom - (y / yMax) * (height - margin.top - margin.bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" ` +
      `font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="20" font-size="14">${escape(title)}</text>`,
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1].map((share) => share * yMax)) {
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${py(tick)}" y2="${py(tick)}" stroke="#ddd"/>`,
    );
    parts.push(
      `<text x="${margin.left - 8}" y="${py(tick) + 4}" ` +
        `text-anchor="end">${yMax === 1 ? tick.toFixed(2) : String(Math.round(tick * 100) / 100)}</text>`,
    );
  }
  const xStep = Math.max(1, Math.ceil(xMax / 10));
  for (let x = 0; x <= xMax; x += xStep)
    parts.push(`<text x="${px(x)}" y="${height - margin.bottom + 16}" text-anchor="middle">${x}</text>`);
  parts.push(
    `<text x="${(margin.left + width - margin.right) / 2}" y="${height - 6}" ` +
      `text-anchor="middle">${escape(options.xLabel ?? 'iteration')}</text>`,
  );
  series.forEach((line, index) => {
    if (line.points.length) {
      const path = line.points
        .map((point, i) => `${i ? 'L' : 'M'}${px(point.x).toFixed(1)},${py(point.y).toFixed(1)}`)
        .join(' ');
      parts.push(
        `<path d="${path}" fill="none" stroke="${line.colour}" ` +
          `stroke-width="2"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      );
      for (const point of line.points)
        parts.push(
          `<circle cx="${px(point.x).toFixed(1)}" cy="${py(point.y).toFixed(1)}" r="2.5" fill="${line.colour}"/>`,
        );
    }
    const y = margin.top + 10 + index * 18;
    parts.push(
      `<line x1="${width - margin.right + 12}" x2="${width - margin.right + 36}" y1="${y}" y2="${y}" ` +
        `stroke="${line.colour}" stroke-width="2"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    parts.push(`<text x="${width - margin.right + 42}" y="${y + 4}">${escape(line.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const fixed = (value: number | null | undefined) => (value === null || value === undefined ? '-' : value.toFixed(3));

/** Writes report.md and its charts into the run's records; returns the report's URL. */
export async function writeReport(runRef: string, metrics: readonly IterationMetrics[]): Promise<string> {
  const pick = (get: (line: IterationMetrics) => number | null | undefined) =>
    metrics.flatMap((line) => {
      const value = get(line);
      return value === null || value === undefined ? [] : [{ x: line.iteration, y: value }];
    });
  const chart = lineChart('reward and true success per iteration', [
    { name: 'train reward', colour: '#1f77b4', dashed: false, points: pick((line) => line.train?.meanReward) },
    { name: 'train true success', colour: '#1f77b4', dashed: true, points: pick((line) => line.train?.trueSuccess) },
    { name: 'eval reward', colour: '#d62728', dashed: false, points: pick((line) => line.eval?.meanReward) },
    { name: 'eval true success', colour: '#d62728', dashed: true, points: pick((line) => line.eval?.trueSuccess) },
  ]);
  const run = runStore(runRef);
  await run.writeNamed('reward.svg', chart);
  const steps = metrics.filter((line) => line.async);
  if (steps.length) {
    const staleness = lineChart(
      'staleness of the trained tokens per step (versions)',
      [
        {
          name: 'max',
          colour: '#d62728',
          dashed: false,
          points: steps.map((line) => ({ x: line.iteration, y: line.async!.staleness.max })),
        },
        {
          name: 'mean',
          colour: '#1f77b4',
          dashed: true,
          points: steps.map((line) => ({ x: line.iteration, y: line.async!.staleness.mean })),
        },
      ],
      { yMax: Math.max(1, ...steps.map((line) => line.async!.staleness.max)), xLabel: 'step' },
    );
    await run.writeNamed('staleness.svg', staleness);
  }
  const outcomes = [
    ...new Set(metrics.flatMap((line) => Object.keys({ ...line.train?.outcomes, ...line.eval?.outcomes }))),
  ].sort();
  const lines = [
    '# Training run report',
    '',
    '![reward and true success per iteration](reward.svg)',
    '',
    'Iteration i samples with the policy published before its step; `eval` is measured on tasks never trained on. ' +
      'The `warm start` line: its demonstrations (train), the policy before it (eval) and its imitation step.',
    '',
    'True success is the mean over audited episodes; `unaudited` counts the scored episodes of tasks without an ' +
      'oracle, whose true success nothing independent checked (never counted as successes).',
    '',
    '| iteration | policy | train reward | train true success | eval reward | eval true success | unaudited | ' +
      'tampered | forged reports | loss | clip frac | KL | sandbox s | tests s | probes s | inference s | training s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...metrics.map((line) =>
      [
        '',
        line.iteration === -1 ? 'warm start' : line.iteration,
        line.policyVersion,
        fixed(line.train?.meanReward),
        fixed(line.train?.trueSuccess),
        fixed(line.eval?.meanReward),
        fixed(line.eval?.trueSuccess),
        line.train ? (line.train.unaudited ?? 0) + (line.eval?.unaudited ?? 0) : '-',
        line.train?.tampered ?? '-',
        line.train ? (line.train.forgedReports ?? 0) + (line.eval?.forgedReports ?? 0) : '-',
        fixed(line.training?.loss),
        fixed(line.training?.clipFraction),
        fixed(line.training?.klK3),
        line.time.sandboxS.toFixed(1),
        line.time.testsS.toFixed(1),
        (line.time.probesS ?? 0).toFixed(1),
        line.time.inferenceS.toFixed(1),
        line.time.trainingS.toFixed(1),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
    '',
    ...phaseTable(metrics),
    ...creditTable(metrics),
    '## Outcomes (training episodes / evaluation episodes)',
    '',
    `| iteration | ${outcomes.join(' | ')} |`,
    `|---|${outcomes.map(() => '---').join('|')}|`,
    ...metrics.map(
      (line) =>
        `| ${line.iteration} | ` +
        outcomes
          .map((outcome) => `${line.train?.outcomes[outcome] ?? 0} / ${line.eval?.outcomes[outcome] ?? 0}`)
          .join(' | ') +
        ' |',
    ),
    '',
    ...(steps.length
      ? [
          '## Asynchronous steps',
          '',
          '![staleness of the trained tokens per step](staleness.svg)',
          '',
          'Staleness of a trained token: the version its step starts from minus the version that generated it. ' +
            ('`stale`: groups dropped when the batch was cut; `spanning`: episodes whose trained tokens come ' +
              'from several versions; w = π_prox / μ.'),
          '',
          '| step | staleness max | mean | histogram | stale | parked | resumed | abandoned | spanning | w mean ' +
            '| w max | w over cap | mismatch KL | trainer idle | sampler idle |',
          '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
          ...steps.map((line) => {
            const a = line.async!;
            const w = a.importanceWeight;
            return (
              `| ${line.iteration} | ${a.staleness.max} | ${fixed(a.staleness.mean)} | ` +
              (`${a.staleness.histogram.join(' ') || '-'} | ${a.stale} | ${a.parked} | ${a.resumed} | ` +
                (`${a.abandoned} | ${a.spanningVersions} | ${fixed(w?.mean)} | ${fixed(w?.max)} | ` +
                  (`${fixed(w?.truncatedShare)} | ${fixed(line.training?.mismatchKl)} | ` +
                    `${fixed(a.trainerIdleShare)} | ${fixed(a.samplerIdleShare)} |`)))
            );
          }),
          '',
        ]
      : []),
  ];
  await run.writeNamed('report.md', lines.join('\n'));
  return run.urlOf('report.md');
}

/**
 * The episodes' time by phase per iteration (seconds summed over the iteration's episodes); none before it was kept.
 */
function phaseTable(metrics: readonly IterationMetrics[]): string[] {
  const lines = metrics.filter((line) => line.time.phases);
  if (lines.length === 0) return [];
  return [
    "## Where the episodes' time went (seconds, summed over episodes)",
    '',
    "Sweeps overlap the records; round trips are the turns' time outside their activities (Temporal); the grader's",
    "and the audit's runs are inside scoring and overlap each other.",
    '',
    '| iteration | acquire | inference | tool calls | sweeps | records | round trips | scoring | grader | audit |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...lines.map((line) => {
      const phases = line.time.phases!;
      return `| ${line.iteration} | ${[
        phases.acquireS,
        phases.inferenceS,
        phases.toolS,
        phases.sweepS,
        phases.storeS,
        phases.roundTripsS,
        phases.scoringS,
        phases.graderS,
        phases.auditS,
      ]
        .map((seconds) => (seconds === undefined ? '-' : seconds.toFixed(1)))
        .join(' | ')} |`;
    }),
    '',
  ];
}

/**
 * Credit and loss per step where a run has them: GiGPO's step groups and the tokens that got a step advantage,
 * the loss-mask ablation's environment tokens, dual-clip's share and the KL to the sampling policy by estimator.
 */
function creditTable(metrics: readonly IterationMetrics[]): string[] {
  const lines = metrics.filter((line) => line.training?.klSampling || line.batch?.counts.stepGroups !== undefined);
  const critic = lines.some((line) => line.training?.critic);
  if (lines.length === 0) return [];
  const count = (line: IterationMetrics, name: string) => line.batch?.counts[name] ?? '-';
  return [
    '## Credit and loss guards',
    '',
    '`step groups`: GiGPO step groups of two or more actions; `step-credited tokens`: trained tokens of the actions ' +
      'in them; `environment tokens`: observations trained on (the loss-mask ablation); `dual-clip`: the share of ' +
      'trained tokens where it bound; KL to the sampling policy by estimator' +
      (critic
        ? '; the critic: its mean value and the mean return at the steps, the explained variance, the value loss.'
        : '.'),
    '',
    '| iteration | step groups | step-credited tokens | environment tokens | dual-clip | KL k1 | KL k2 | KL k3 | ' +
      `low-var KL |${critic ? ' value | return | explained var | value loss |' : ''}`,
    `|---|---|---|---|---|---|---|---|---|${critic ? '---|---|---|---|' : ''}`,
    ...lines.map((line) => {
      const kl = line.training?.klSampling;
      return (
        `| ${line.iteration} | ${count(line, 'stepGroups')} | ${count(line, 'stepAdvantageTokens')} | ` +
        `${count(line, 'environmentTokens')} | ${fixed(line.training?.clipFractionLower)} | ${fixed(kl?.k1)} | ` +
        `${fixed(kl?.k2)} | ${fixed(kl?.k3)} | ${fixed(kl?.lowVarKl)} |` +
        (critic
          ? ` ${fixed(line.training?.critic?.meanValue)} | ${fixed(line.training?.critic?.meanReturn)} | ` +
            `${fixed(line.training?.critic?.explainedVariance)} | ${fixed(line.training?.critic?.valueLoss)} |`
          : '')
      );
    }),
    '',
  ];
}
