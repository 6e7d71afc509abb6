// The venue-wide public tape as the Tape page shows it: each print's size,
// or "deferred" while the venue holds it back (flag LMTF), one instrument's
// prints or all.
import type { Print } from "./trades";

/** deferred says whether a print's size is held back: not yet on the tape (LMTF, no quantity). */
export function deferred(p: Pick<Print, "quantity">): boolean {
  return p.quantity === null;
}

/** onTape is the prints of one instrument ("" for all), newest first as kept, at most max. */
export function onTape(tape: Print[], instrumentId: string, max = 200): Print[] {
  return (instrumentId ? tape.filter((p) => p.instrumentId === instrumentId) : tape).slice(0, max);
}
