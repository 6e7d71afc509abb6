// Portfolio (list) RFQs on the screen: the list ticket's lines read from
// pasted text or a CSV file, and which quote is best for the requester.
// Pure, so tested alone.
import { cmp, parse } from "../model/decimal";
import type { Instrument, PortfolioQuote, PortfolioRFQ } from "../client/types";

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

/** fieldsOf splits a pasted line: by tabs (a spreadsheet's cells), else semicolons, else commas, else spaces. */
function fieldsOf(raw: string): string[] {
  const sep = raw.includes("\t") ? "\t" : raw.includes(";") ? ";" : raw.includes(",") ? "," : null;
  const fields = (sep ? raw.split(sep) : raw.split(/\s+/)).map((x) => x.trim()).filter(Boolean);
  // Comma-separated, the nominal's thousands separators split it: 1,000,000 is one field.
  if (sep === "," && fields.length > 3 && /^\d{1,3}$/.test(fields[2]!) && fields.slice(3).every((x) => /^\d{3}$/.test(x))) {
    return [fields[0]!, fields[1]!, fields.slice(2).join(",")];
  }
  return fields;
}

/** nominalOf reads a nominal with its thousands separators (2,000,000, 2.000.000, 2'000'000, 2 000 000) as digits. */
export function nominalOf(v: string): string {
  const t = v.trim();
  if (/^\d{1,3}([,.' \u00a0\u202f_]\d{3})+$/.test(t) && new Set(t.replace(/\d/g, "")).size === 1) return t.replace(/\D/g, "");
  return t.replace(/_/g, "");
}

/**
 * parseLines reads a list's lines, one per line of text: an ISIN, a side
 * (buy or sell) and a nominal, separated by tabs (what a spreadsheet
 * copies), semicolons, commas or spaces; the nominal may group its
 * thousands (2,000,000). Empty lines and a header line (one whose first
 * field is "isin") are skipped.
 */
export function parseLines(text: string, instruments: Instrument[]): ParsedLines {
  const byIsin = new Map(instruments.map((i) => [i.isin.toUpperCase(), i]));
  const out: ParsedLines = { lines: [], errors: [] };
  text.split(/\r?\n/).forEach((raw, n) => {
    const fields = fieldsOf(raw);
    if (fields.length === 0 || fields[0]!.toLowerCase() === "isin") return;
    const where = `Line ${n + 1}`;
    if (fields.length !== 3) {
      out.errors.push(`${where}: give an ISIN, buy or sell, and a nominal`);
      return;
    }
    const [isin, side, given] = fields as [string, string, string];
    const ins = byIsin.get(isin.toUpperCase());
    const dir = sides[side.toLowerCase()];
    const qty = nominalOf(given);
    const q = /^\d+(\.\d+)?$/.test(qty) ? parse(qty) : null;
    if (!ins) out.errors.push(`${where}: no instrument has ISIN ${isin}`);
    else if (!dir) out.errors.push(`${where}: the side must be buy or sell, not ${side}`);
    else if (!q || q.c <= 0n) out.errors.push(`${where}: the nominal must be a positive number, not ${given}`);
    else out.lines.push({ instrument_id: ins.id, direction: dir, quantity: qty });
  });
  if (out.lines.length > maxLines) out.errors.push(`A list holds at most ${maxLines} lines, not ${out.lines.length}`);
  return out;
}

/** examplePaste is the ticket's example: two of the venue's listed bonds, one bought and one sold. */
export function examplePaste(instruments: Pick<Instrument, "isin">[]): string {
  const [a, b] = instruments;
  if (!a) return "ISIN, buy or sell, nominal";
  return `${a.isin}, buy, 1,000,000\n${(b ?? a).isin}\tsell\t500000`;
}

/** DealerState is what the requester reads of one dealer asked to quote a list. */
export interface DealerState {
  participantId: string;
  state: "quoted" | "declined" | "no answer" | "done" | "not done" | "withdrawn";
}

/** dealerStates is each dealer the list was sent to, with its answer: its latest quote's, a decline, or none yet. */
export function dealerStates(l: Pick<PortfolioRFQ, "counterparties" | "quotes">): DealerState[] {
  return l.counterparties.map((id) => {
    const q = l.quotes.filter((x) => x.participant_id === id).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    let state: DealerState["state"] = "no answer";
    if (q?.outcome === "declined") state = "declined";
    else if (q?.outcome === "done") state = "done";
    else if (q?.outcome === "withdrawn") state = "withdrawn";
    else if (q?.outcome) state = "not done";
    else if (q) state = q.status === "created" ? "quoted" : "withdrawn";
    return { participantId: id, state };
  });
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
