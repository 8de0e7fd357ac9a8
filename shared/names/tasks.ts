/** A task's name, the last part of its folder's path: in episode workflow ids and held-out checks. */
export function taskName(path: string): string {
  return path.split('/').filter(Boolean).at(-1) ?? path;
}
