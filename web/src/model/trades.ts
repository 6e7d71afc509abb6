// How a trade reads in the blotter: a participant sees its side and the
// counterparty; the venue operator, party to neither side, sees both; and
// a trade's accrued interest, exactly.
import type { Trade } from "../client/types";
import { mul, parse, shift, sub, text } from "./decimal";

export interface TradeSides {
  /** side is "Bought" or "Sold" for a party to the trade, "" for the operator. */
  side: "Bought" | "Sold" | "";
  buyer: string;
  seller: string;
  /** counterparty is the other side's name for a party, "" for the operator. */
  counterparty: string;
}

/** tradeSides reads a trade for the participant mine (none: the operator); name names a participant. */
export function tradeSides(t: Trade, mine: string | null | undefined, name: (id: string) => string): TradeSides {
  const buyer = t.bid_order.participant?.name ?? name(t.bid_order.participant_id);
  const seller = t.ask_order.participant?.name ?? name(t.ask_order.participant_id);
  if (mine && t.bid_order.participant_id === mine) return { side: "Bought", buyer, seller, counterparty: seller };
  if (mine && t.ask_order.participant_id === mine) return { side: "Sold", buyer, seller, counterparty: buyer };
  return { side: "", buyer, seller, counterparty: "" };
}

/** participantName names a participant from the names known, never by an id prefix (demo ids share theirs). */
export function participantName(id: string | null | undefined, names: ReadonlyMap<string, string>): string {
  if (!id) return "";
  return names.get(id) ?? "participant " + id;
}

/** TapePrint is a trade on the public tape, as GET /tape and tape.publish give it: no party; price and quantity null until due. */
export interface TapePrint {
  trade_id: string;
  instrument_id: string;
  isin?: string;
  market_id: string;
  price: string | number | null;
  quantity: string | number | null;
  execution_type: string;
  occurred_at: string;
  flags: string[];
  publication: { volume_due_at: string };
}

/** Print is a trade on the screen's tape: the public tape. */
export interface Print {
  tradeId: string;
  instrumentId: string;
  marketId: string;
  price: string | number | null;
  /** quantity is null while the size is deferred (sizeDueAt says until when). */
  quantity: string | number | null;
  sizeDueAt: string;
  at: string;
  /** isin and flags are the tape's (LMTF: size held back; FULF: full details after a deferral). */
  isin: string;
  flags: string[];
}

/** printOf is a tape entry as the screen shows it. */
export function printOf(t: TapePrint): Print {
  return { tradeId: t.trade_id, instrumentId: t.instrument_id, marketId: t.market_id, price: t.price, quantity: t.quantity, sizeDueAt: t.publication?.volume_due_at ?? "", at: t.occurred_at, isin: t.isin ?? "", flags: t.flags ?? [] };
}

/** tapeOf turns the tape read at sign-in (newest first) into the screen's prints (a book's Last is the venue's last trades', never the tape's). */
export function tapeOf(list: TapePrint[]): Print[] {
  return list.map(printOf);
}

/** withPrint puts a tape entry on the screen's tape, newest first: a later publication of the same trade (its size) replaces the earlier. */
export function withPrint(tape: Print[], t: TapePrint, max = 500): Print[] {
  const p = printOf(t);
  const i = tape.findIndex((x) => x.tradeId === p.tradeId);
  if (i >= 0) return tape.map((x, j) => (j === i ? p : x));
  const out = [p, ...tape];
  out.sort((a, b) => b.at.localeCompare(a.at));
  return out.slice(0, max);
}

/** accruedOf is a trade's accrued interest: the field when sent, else settlement amount − quantity × clean / 100, exactly. */
export function accruedOf(t: Trade): string | null {
  if (t.accrued_interest !== undefined && t.accrued_interest !== null) return String(t.accrued_interest);
  const amount = parse(t.price);
  const q = parse(t.quantity);
  const p = parse(t.price_per_unit);
  if (!amount || !q || !p) return null;
  return text(sub(amount, shift(mul(q, p), -2)));
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** dayFormat is the formatter of a day in zone, made once per zone (a blotter reads a date per row on every render). */
function dayFormat(zone: string): Intl.DateTimeFormat {
  let f = dayFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" });
    dayFormats.set(zone, f);
  }
  return f;
}

/** tradeDate is the trade date (YYYY-MM-DD) of a trade at iso on a market in time zone zone (IANA; UTC when unknown): the market's business day. */
export function tradeDate(iso: string, zone: string | undefined): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = dayFormat(zone || "UTC").formatToParts(at);
  } catch {
    return at.toISOString().slice(0, 10); // an unknown zone: UTC
  }
  const part = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")}`;
}
