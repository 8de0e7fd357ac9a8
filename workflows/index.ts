export { rolloutEpisode } from './rollout-episode';
