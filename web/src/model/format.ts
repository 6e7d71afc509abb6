// How numbers and times look on the screen: prices at the instrument's
// precision, amounts with two places and thousands separators, yields in
// percent, times in the browser's zone (UTC on hover, see utcTitle).
import { fixed, parse, sign, sub, text } from "./decimal";

type Num = string | number | null | undefined;

const dash = "–";

/** price renders a clean price in percent of par at the instrument's precision. */
export function price(v: Num, precision = 4): string {
  const d = parse(v);
  return d ? fixed(d, precision) : dash;
}

/** quantity renders a nominal amount grouped by thousands, without decimals unless it has them. */
export function quantity(v: Num): string {
  const d = parse(v);
  return d ? fixed(d, Math.min(d.s, 2), true) : dash;
}

/** amount renders money with two places, grouped by thousands. */
export function amount(v: Num): string {
  const d = parse(v);
  return d ? fixed(d, 2, true) : dash;
}

/** yieldPct renders a yield in percent with three places and a % sign. */
export function yieldPct(v: Num): string {
  const d = parse(v);
  return d ? fixed(d, 3) + " %" : dash;
}

/** coupon renders a coupon rate exactly, in percent. */
export function coupon(v: Num): string {
  const d = parse(v);
  return d ? text(d) + " %" : dash;
}

/** compact renders a nominal in millions/thousands for narrow columns (1.5M, 250k), exactly. */
export function compact(v: Num): string {
  const d = parse(v);
  if (!d) return dash;
  const abs = d.c < 0n ? { c: -d.c, s: d.s } : d;
  const whole = abs.c / 10n ** BigInt(abs.s);
  const sgn = d.c < 0n ? "-" : "";
  if (whole >= 1_000_000n) return sgn + text(parse(text(abs) + "e-6")!) + "M";
  if (whole >= 1_000n) return sgn + text(parse(text(abs) + "e-3")!) + "k";
  return sgn + text(abs);
}

function pad(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

/** time renders a timestamp in the browser's zone, HH:MM:SS today or YYYY-MM-DD HH:MM otherwise. */
export function time(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return dash;
  const t = new Date(iso);
  if (isNaN(t.getTime())) return dash;
  const hms = `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`;
  if (t.toDateString() === now.toDateString()) return hms;
  return `${localDate(t)} ${pad(t.getHours())}:${pad(t.getMinutes())}`;
}

/** utcTitle is the hover text of a time: the instant in UTC. */
export function utcTitle(iso: string | null | undefined): string {
  if (!iso) return "";
  const t = new Date(iso);
  if (isNaN(t.getTime())) return "";
  return t.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC").replace(/Z$/, " UTC");
}

/** localDate is YYYY-MM-DD of a Date in the browser's zone. */
export function localDate(t: Date): string {
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}`;
}

/** date renders a date (or the date part of a timestamp) as YYYY-MM-DD. */
/** dayKey is a local day as YYYY-MM-DD (for file names). */
export function dayKey(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

export function date(v: string | null | undefined): string {
  if (!v) return dash;
  return v.slice(0, 10);
}

/** countdown renders the time left until an instant: 4:05, 0:09, or "expired". */
export function countdown(until: string | null | undefined, now: number): string {
  if (!until) return dash;
  const ms = new Date(until).getTime() - now;
  if (isNaN(ms)) return dash;
  if (ms <= 0) return "expired";
  const s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** side names a direction for people. */
export function side(direction: string): string {
  return direction === "bid" || direction === "buy" ? "Buy" : "Sell";
}

/** status names a record status for people. */
export function status(s: string): string {
  return s === "created" ? "open" : s;
}

interface Fill {
  status: string;
  quantity: Num;
  filled_quantity: Num;
}

function filledOf(o: Fill): { filled: string; left: string; any: boolean; all: boolean } {
  const q = parse(o.quantity);
  const done = parse(o.filled_quantity);
  if (!q || !done) return { filled: dash, left: dash, any: false, all: false };
  const left = sub(q, done);
  return { filled: quantity(text(done)), left: quantity(text(left)), any: sign(done) > 0, all: sign(done) > 0 && sign(left) <= 0 };
}

/** outcomeLabel names how a quote ended, for people. */
export function outcomeLabel(outcome: string): string {
  switch (outcome) {
    case "done":
      return "done";
    case "cover":
      return "cover";
    case "tied":
      return "tied, not chosen";
    case "done_away":
      return "done away";
    case "passed":
      return "passed";
    case "declined":
      return "declined";
    case "withdrawn":
      return "withdrawn";
    case "expired":
      return "expired";
    case "cancelled":
      return "request cancelled";
    default:
      return outcome;
  }
}

/** offerStatus names an offer's state for people: open, partially filled with what is left, filled; a quote that ended, its outcome. */
export function offerStatus(o: Fill & { outcome?: string | null }): string {
  if (o.outcome) return outcomeLabel(o.outcome);
  const f = filledOf(o);
  if (f.all) return "filled";
  if (o.status === "created") return f.any ? `partially filled · ${f.left} left` : "open";
  return f.any ? `${status(o.status)} · ${f.filled} filled` : status(o.status);
}

/** placed says what became of an order just sent: placed, filled, or partially filled. */
export function placed(direction: string, o: Fill | null): string {
  const what = direction === "bid" || direction === "buy" ? "Bid" : "Ask";
  if (!o) return what + " placed";
  const f = filledOf(o);
  if (f.all) return `${what} filled: ${f.filled}`;
  if (f.any) return `${what} partially filled: ${f.filled} done, ${f.left} left`;
  return what + " placed";
}

/**
 * chartTime is the chart's time of an instant: the chart draws its axis
 * in UTC, so the instant is shifted by the browser zone's offset at that
 * instant (offsetMinutes as Date.getTimezoneOffset gives it) to read in
 * local time like every other time on the screen.
 */
export function chartTime(iso: string, offsetMinutes: number = new Date(iso).getTimezoneOffset()): number {
  return Math.floor(new Date(iso).getTime() / 1000) - offsetMinutes * 60;
}
