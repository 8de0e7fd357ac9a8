import { join } from 'node:path';
import type { IterationMetrics } from '../../shared/training-run';
import { atomicWrite } from '../store/artifact-store';

interface Series {
  name: string;
  colour: string;
  dashed: boolean;
  points: { x: number; y: number }[];
}

/** A line chart of values in [0, 1] per iteration, as standalone SVG. */
export function lineChart(title: string, series: readonly Series[]): string {
  const width = 640;
  const height = 320;
  const margin = { left: 48, right: 160, top: 32, bottom: 40 };
  const xs = series.flatMap((line) => line.points.map((point) => point.x));
  const xMax = Math.max(1, ...xs);
  const px = (x: number) => margin.left + (x / xMax) * (width - margin.left - margin.right);
  const py = (y: number) => height - margin.bottom - y * (height - margin.top - margin.bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="20" font-size="14">${escape(title)}</text>`,
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${py(tick)}" y2="${py(tick)}" stroke="#ddd"/>`);
    parts.push(`<text x="${margin.left - 8}" y="${py(tick) + 4}" text-anchor="end">${tick.toFixed(2)}</text>`);
  }
  const xStep = Math.max(1, Math.ceil(xMax / 10));
  for (let x = 0; x <= xMax; x += xStep) parts.push(`<text x="${px(x)}" y="${height - margin.bottom + 16}" text-anchor="middle">${x}</text>`);
  parts.push(`<text x="${(margin.left + width - margin.right) / 2}" y="${height - 6}" text-anchor="middle">iteration</text>`);
  series.forEach((line, index) => {
    if (line.points.length) {
      const path = line.points.map((point, i) => `${i ? 'L' : 'M'}${px(point.x).toFixed(1)},${py(point.y).toFixed(1)}`).join(' ');
      parts.push(`<path d="${path}" fill="none" stroke="${line.colour}" stroke-width="2"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
      for (const point of line.points) parts.push(`<circle cx="${px(point.x).toFixed(1)}" cy="${py(point.y).toFixed(1)}" r="2.5" fill="${line.colour}"/>`);
    }
    const y = margin.top + 10 + index * 18;
    parts.push(`<line x1="${width - margin.right + 12}" x2="${width - margin.right + 36}" y1="${y}" y2="${y}" stroke="${line.colour}" stroke-width="2"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    parts.push(`<text x="${width - margin.right + 42}" y="${y + 4}">${escape(line.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const fixed = (value: number | null | undefined) => (value === null || value === undefined ? '-' : value.toFixed(3));

/** Writes report.md and its charts into the run folder; returns the report's path. */
export async function writeReport(runDir: string, metrics: readonly IterationMetrics[]): Promise<string> {
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
  await atomicWrite(join(runDir, 'reward.svg'), chart);
  const outcomes = [...new Set(metrics.flatMap((line) => Object.keys({ ...line.train?.outcomes, ...line.eval?.outcomes })))].sort();
  const lines = [
    '# Training run report',
    '',
    '![reward and true success per iteration](reward.svg)',
    '',
    'Iteration i samples with the policy published before its step; `eval` is measured on tasks never trained on.',
    '',
    '| iteration | policy | train reward | train true success | eval reward | eval true success | tampered | forged reports | loss | clip frac | KL | sandbox s | tests s | probes s | inference s | training s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...metrics.map((line) => `| ${line.iteration} | ${line.policyVersion} | ${fixed(line.train?.meanReward)} | ${fixed(line.train?.trueSuccess)} | ${fixed(line.eval?.meanReward)} | ${fixed(line.eval?.trueSuccess)} | ${line.train?.tampered ?? '-'} | ${line.train ? (line.train.forgedReports ?? 0) + (line.eval?.forgedReports ?? 0) : '-'} | ${fixed(line.training?.loss)} | ${fixed(line.training?.clipFraction)} | ${fixed(line.training?.klK3)} | ${line.time.sandboxS.toFixed(1)} | ${line.time.testsS.toFixed(1)} | ${(line.time.probesS ?? 0).toFixed(1)} | ${line.time.inferenceS.toFixed(1)} | ${line.time.trainingS.toFixed(1)} |`),
    '',
    '## Outcomes (training episodes / evaluation episodes)',
    '',
    `| iteration | ${outcomes.join(' | ')} |`,
    `|---|${outcomes.map(() => '---').join('|')}|`,
    ...metrics.map((line) => `| ${line.iteration} | ${outcomes.map((outcome) => `${line.train?.outcomes[outcome] ?? 0} / ${line.eval?.outcomes[outcome] ?? 0}`).join(' | ')} |`),
    '',
  ];
  const path = join(runDir, 'report.md');
  await atomicWrite(path, lines.join('\n'));
  return path;
}
