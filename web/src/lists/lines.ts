// Portfolio (list) RFQs on the screen: the list ticket's lines read from
// pasted text or a CSV file, and which quote is best for the requester.
// Pure, so tested alone.
import { cmp, parse } from "../model/decimal";
import type { Instrument, PortfolioQuote } from "../client/types";

export interface ListLine {
  instrument_id: string;
  direction: "bid" | "ask";
  quantity: string;
}

export interface ParsedLines {
  lines: ListLine[];
  /** errors name each bad line by its number in the text (from 1). */
  errors: string[];
}

/** maxLines is the most lines a list holds. */
export const maxLines = 200;

const sides: Record<string, "bid" | "ask"> = { buy: "bid", bid: "bid", b: "bid", sell: "ask", ask: "ask", s: "ask" };

/**
 * parseLines reads a list's lines, one per line of text: an ISIN, a side
 * (buy or sell) and a nominal, separated by commas, semicolons, tabs or
 * spaces (what a spreadsheet copies or a CSV holds). Empty lines and a
 * header line (one whose first field is "isin") are skipped.
 */
export function parseLines(text: string, instruments: Instrument[]): ParsedLines {
  const byIsin = new Map(instruments.map((i) => [i.isin.toUpperCase(), i]));
  const out: ParsedLines = { lines: [], errors: [] };
  text.split(/\r?\n/).forEach((raw, n) => {
    const fields = raw.split(/[,;\t ]+/).map((x) => x.trim()).filter(Boolean);
    if (fields.length === 0 || fields[0]!.toLowerCase() === "isin") return;
    const where = `Line ${n + 1}`;
    if (fields.length !== 3) {
      out.errors.push(`${where}: give an ISIN, buy or sell, and a nominal`);
      return;
    }
    const [isin, side, qty] = fields as [string, string, string];
    const ins = byIsin.get(isin.toUpperCase());
    const dir = sides[side.toLowerCase()];
    const q = parse(qty);
    if (!ins) out.errors.push(`${where}: no instrument has ISIN ${isin}`);
    else if (!dir) out.errors.push(`${where}: the side must be buy or sell, not ${side}`);
    else if (!q || q.c <= 0n) out.errors.push(`${where}: the nominal must be a positive number`);
    else out.lines.push({ instrument_id: ins.id, direction: dir, quantity: qty.replace(/[_,]/g, "") });
  });
  if (out.lines.length > maxLines) out.errors.push(`A list holds at most ${maxLines} lines, not ${out.lines.length}`);
  return out;
}

/** bestQuote is the live quote with the most net proceeds for the requester (the earliest of equals), or null. */
export function bestQuote(quotes: PortfolioQuote[]): PortfolioQuote | null {
  let best: PortfolioQuote | null = null;
  for (const q of quotes) {
    if (q.status !== "created" || q.net_proceeds === null) continue;
    const n = parse(q.net_proceeds);
    const b = best ? parse(best.net_proceeds) : null;
    if (n && (!b || cmp(n, b) > 0 || (cmp(n, b) === 0 && q.createdAt < best!.createdAt))) best = q;
  }
  return best;
}
