// The chart's points over time: the charting library sets bars side by
// side whatever the time between them, so the intervals without a trade
// are given as empty points, and bars an hour apart are an hour apart on
// the axis. Pure, so tested alone.

/** maxGap bounds the empty points put between two bars (a quiet week of minute bars draws as its last thousand minutes). */
export const maxGap = 1000;

/** gapTimes are the times of the intervals of step seconds strictly between two bars' times, at most maxGap of them (the latest). */
export function gapTimes(from: number, to: number, step: number): number[] {
  const n = Math.round((to - from) / step);
  const out: number[] = [];
  for (let k = Math.max(1, n - maxGap); k < n; k++) out.push(from + k * step);
  return out;
}

/** spaced puts an empty point ({time}) in every interval without a bar between the bars given, oldest first. */
export function spaced<T extends { time: number }>(points: T[], step: number): (T | { time: number })[] {
  const out: (T | { time: number })[] = [];
  let prev: number | null = null;
  for (const p of points) {
    if (prev !== null) for (const t of gapTimes(prev, p.time, step)) out.push({ time: t });
    out.push(p);
    prev = p.time;
  }
  return out;
}
