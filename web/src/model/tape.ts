// The venue-wide public tape as the Tape page shows it: each print's size
// or "deferred" while the venue holds it back (flag LMTF), and its time
// with the zone it is read in, since the tape is read across desks.
import type { Print } from "./trades";

/** deferred says whether a print's size is held back: not yet on the tape (LMTF, no quantity). */
export function deferred(p: Pick<Print, "quantity">): boolean {
  return p.quantity === null;
}

/** onTape is the prints of one instrument ("" for all), newest first as kept, at most max. */
export function onTape(tape: Print[], instrumentId: string, max = 200): Print[] {
  return (instrumentId ? tape.filter((p) => p.instrumentId === instrumentId) : tape).slice(0, max);
}

/**
 * zonedTime renders an instant as date, time and zone in zone (IANA; the
 * browser's when not given): "2026-12-08 14:03:21 CET".
 */
export function zonedTime(iso: string, zone?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "–";
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
  }).formatToParts(at);
  const part = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}:${part("second")} ${part("timeZoneName")}`;
}
