/**
 * throttleDelay is how long to wait before doing again what was last done
 * at lastAt (ms), so that it is done at most once every gap ms: 0 when it
 * may be done now. A change that arrives inside the gap is not dropped: it
 * is done once the gap has passed (a trailing call), with every change
 * that came meanwhile.
 */
export function throttleDelay(lastAt: number | null, now: number, gap: number): number {
  if (lastAt === null) return 0;
  return Math.max(0, lastAt + gap - now);
}
