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

/** coupon renders a coupon rate in percent with three places (more when it has them), so a column of coupons lines up: 3.000 %, 3.375 %. */
export function coupon(v: Num): string {
  const d = parse(v);
  return d ? fixed(d, Math.max(3, d.s)) + " %" : dash;
}

/** money renders an amount of money with two places and its currency: 12,500.00 EUR. */
export function money(v: Num, currency: string): string {
  const d = parse(v);
  return d ? fixed(d, 2, true) + (currency ? " " + currency : "") : dash;
}

/** oneCurrency is the currency all of a list's amounts are in, or "" when they are in several (then no amount is summed). */
export function oneCurrency(codes: readonly (string | undefined)[]): string {
  const set = new Set(codes.filter((c): c is string => !!c));
  return set.size === 1 ? [...set][0]! : "";
}

/** stale reports whether prices on the screen may be out of date: the stream is not live. */
export function stale(status: string): boolean {
  return status !== "live";
}

const limitNames: Record<string, string> = {
  MAX_OFFER: "Largest single order",
  ALL_OFFER_SUM: "Firm's open orders",
  ALL_OFFER_USER_SUM: "Your open orders",
  MAX_OFFER_VALUE: "Largest order value",
};

/** limitName names a risk limit for people (the venue's code stays in its title). */
export function limitName(code: string): string {
  return limitNames[code] ?? code.toLowerCase().replace(/_/g, " ");
}

/**
 * riskRefusal says a venue's risk-limit refusal in words, with the
 * currency: "Over the limit Largest single order: limit 50,000,000 EUR,
 * in use 0 EUR, this order needs 60,000,000 EUR". Null when the message
 * is not a risk-limit refusal.
 */
export function riskRefusal(message: string, currency: string): string | null {
  const m = /risk limit (\w+) breached: limit ([\d.]+), in use ([\d.]+)(?:, this request needs ([\d.]+))?/.exec(message);
  if (!m) return null;
  const [, code = "", limit, used, needs] = m;
  const amt = (v: string | undefined) => quantity(v) + (currency ? " " + currency : "");
  return `Over the limit ${limitName(code)}: limit ${amt(limit)}, in use ${amt(used)}` + (needs ? `, this order needs ${amt(needs)}` : "");
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

// zoneFormat names the browser's zone; made once, as making one costs far more than using it
// (a blotter names the zone of every row on every render).
let zoneFormat: Intl.DateTimeFormat | null = null;
// zoneNames keeps the name of each UTC offset seen (at most a few: winter and summer time).
const zoneNames = new Map<number, string>();

/** zoneName is the browser zone's short name at an instant (CET, GMT+1, UTC). */
export function zoneName(t: Date): string {
  const offset = t.getTimezoneOffset();
  const known = zoneNames.get(offset);
  if (known !== undefined) return known;
  zoneFormat ??= new Intl.DateTimeFormat("en-GB", { timeZoneName: "short" });
  const name = zoneFormat.formatToParts(t).find((p) => p.type === "timeZoneName")?.value ?? "";
  zoneNames.set(offset, name);
  return name;
}

/** time renders a timestamp in the browser's zone, named: HH:MM:SS CET today, YYYY-MM-DD HH:MM CET otherwise. */
export function time(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return dash;
  const t = new Date(iso);
  if (isNaN(t.getTime())) return dash;
  const zone = zoneName(t);
  const hms = `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`;
  if (t.toDateString() === now.toDateString()) return `${hms} ${zone}`.trim();
  return `${localDate(t)} ${pad(t.getHours())}:${pad(t.getMinutes())} ${zone}`.trim();
}

/** stamp renders a timestamp with its date always, for records read later (blotter, news): YYYY-MM-DD HH:MM:SS CET. */
export function stamp(iso: string | null | undefined): string {
  if (!iso) return dash;
  const t = new Date(iso);
  if (isNaN(t.getTime())) return dash;
  return `${localDate(t)} ${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())} ${zoneName(t)}`.trim();
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

/**
 * placed says what became of an order just sent, or null when the fill's
 * own notice (the trade, "Bought 2 m …") already says it all: one notice
 * per fill. A partial fill says only what rests.
 */
export function placed(direction: string, o: Fill | null): string | null {
  const what = direction === "bid" || direction === "buy" ? "Bid" : "Ask";
  if (!o) return what + " placed";
  const f = filledOf(o);
  if (f.all) return null;
  if (f.any) return `${what} placed for the rest: ${f.left} left`;
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

/** allocationLines says each part of an allocation as the blotter row shows it: account · nominal · settlement amount with its currency. */
export function allocationLines(
  parts: readonly { account_id: string; quantity: Num; price: Num }[],
  accountNumber: (id: string) => string,
  currency: string,
): string[] {
  return parts.map((x) => `${accountNumber(x.account_id)} · ${quantity(x.quantity)} · ${money(x.price, currency)}`);
}
