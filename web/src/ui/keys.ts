// Keyboard rules the screen's controls share.

/**
 * arrowStep is the radio an arrow key moves to in a group of count
 * radios (WAI-ARIA radio group: left/up back, right/down on, wrapping), or
 * null for any other key.
 */
export function arrowStep(key: string, index: number, count: number): number | null {
  if (count <= 0) return null;
  if (key === "ArrowLeft" || key === "ArrowUp") return (index - 1 + count) % count;
  if (key === "ArrowRight" || key === "ArrowDown") return (index + 1) % count;
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return null;
}
