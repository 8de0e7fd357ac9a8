export { rolloutEpisode } from './rollout-episode';
export { trainingRun } from './training-run';
