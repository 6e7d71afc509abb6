// The blotter's filters, its CSV export and "Cancel all": which rows a
// trader's filters keep, the rows shown as CSV for a spreadsheet, and
// the firm's open offers cancelled one by one with a count of each end.

/** BlotterFilter is what the trader narrows the blotter to; "" keeps every value. */
export interface BlotterFilter {
  instrumentId: string;
  /** side is the firm's side: buy (bid, bought) or sell (ask, sold). */
  side: "" | "buy" | "sell";
  /** status is an offer's status (created, closed, cancelled, expired, rejected); trades have none. */
  status: string;
  /** from and to bound the row's date (YYYY-MM-DD), both included. */
  from: string;
  to: string;
}

/** openOnly is the blotter's first view: every instrument, side and date, the open offers. */
export const openOnly: BlotterFilter = { instrumentId: "", side: "", status: "created", from: "", to: "" };

/** FilterRow is what the filters read of a row: an offer's entry date, a trade's trade date. */
export interface FilterRow {
  instrumentId: string;
  /** side is null where the reader is party to neither side (the operator reading a trade): the side filter keeps it. */
  side: "buy" | "sell" | null;
  /** status is null for a record without one (a trade): the status filter keeps it. */
  status: string | null;
  date: string;
}

/** sideOf is the side a direction (bid, buy, ask, sell) is on. */
export function sideOf(direction: string): "buy" | "sell" {
  return direction === "bid" || direction === "buy" ? "buy" : "sell";
}

/** keeps says whether the filter keeps the row. */
export function keeps(f: BlotterFilter, r: FilterRow): boolean {
  if (f.instrumentId && r.instrumentId !== f.instrumentId) return false;
  if (f.side && r.side !== null && r.side !== f.side) return false;
  if (f.status && r.status !== null && r.status !== f.status) return false;
  if (f.from && r.date < f.from) return false;
  if (f.to && r.date > f.to) return false;
  return true;
}

/** rangeError names what is wrong with the filter's date range, or null. */
export function rangeError(f: Pick<BlotterFilter, "from" | "to">): string | null {
  if (f.from && f.to && f.from > f.to) return `From ${f.from} is after To ${f.to}`;
  return null;
}

/** csvCell quotes a value for CSV (RFC 4180) and keeps a spreadsheet from reading text as a formula. */
export function csvCell(v: string): string {
  const safe = /^[=+@\t\r]/.test(v) ? "'" + v : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** csv is a header and rows as CSV text (RFC 4180: CRLF, quoted where needed). */
export function csv(header: string[], rows: string[][]): string {
  return [header, ...rows].map((r) => r.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

/** Cancelled is what became of a "Cancel all": how many were cancelled, how many had ended meanwhile, the other failures. */
export interface Cancelled {
  asked: number;
  cancelled: number;
  /** ended counts the offers the venue had closed meanwhile (filled, expired: a 409 or 404). */
  ended: number;
  failed: string[];
}

/**
 * cancelEach cancels each offer (one DELETE each, through cancel), a few
 * at a time so that a long list stays within the venue's rate limit, and
 * counts how each ended. An offer that ended meanwhile is not a failure.
 */
export async function cancelEach(ids: string[], cancel: (id: string) => Promise<unknown>, atOnce = 4): Promise<Cancelled> {
  const out: Cancelled = { asked: ids.length, cancelled: 0, ended: 0, failed: [] };
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        await cancel(id);
        out.cancelled++;
      } catch (e) {
        const status = (e as { status?: number }).status;
        if (status === 409 || status === 404) out.ended++;
        else out.failed.push((e as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, ids.length) }, worker));
  return out;
}

function offers(n: number): string {
  return n === 1 ? "1 open offer" : `${n} open offers`;
}

/** cancelledText says what a "Cancel all" did, in one sentence. */
export function cancelledText(c: Cancelled): string {
  if (c.asked === 0) return "No open offers to cancel";
  let s = c.cancelled === c.asked ? `Cancelled ${offers(c.asked)}` : `Cancelled ${c.cancelled} of ${offers(c.asked)}`;
  if (c.ended > 0) s += `; ${c.ended} had already ended`;
  if (c.failed.length > 0) s += `; ${c.failed.length} failed: ${c.failed[0]}`;
  return s;
}
