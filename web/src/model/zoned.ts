// An instant as a row read on another day, or at another desk, needs it:
// date, time and the zone it is read in (the Tape page, the news).

const formats = new Map<string, Intl.DateTimeFormat>();

/** format is the formatter for zone ("" the browser's), made once per zone: a page reads a time per row on every render. */
function format(zone: string | undefined): Intl.DateTimeFormat {
  let f = formats.get(zone ?? "");
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    formats.set(zone ?? "", f);
  }
  return f;
}

/**
 * zonedTime renders an instant as date, time and zone in zone (IANA; the
 * browser's when not given): "2026-12-08 14:03:21 CET".
 */
export function zonedTime(iso: string, zone?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "–";
  const parts = format(zone).formatToParts(at);
  const part = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}:${part("second")} ${part("timeZoneName")}`;
}
