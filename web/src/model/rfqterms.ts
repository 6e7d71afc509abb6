// The terms a requester may add to an RFQ (a settlement date, a limit
// price, and whether the first quote at or better than the limit trades at
// once: is_executable), and how long a dealer's quote stays valid.
import { priceError, settlementDateError } from "./validate";

/** RfqTerms are the request ticket's optional terms as typed. */
export interface RfqTerms {
  settlement: string;
  limit: string;
  executable: boolean;
}

/** TermsError is what is wrong with the terms, and in which field. */
export interface TermsError {
  field: "limit" | "settlement";
  message: string;
}

/** rfqTermsError names the first thing wrong with the terms and its field, or null; the venue checks them again. */
export function rfqTermsError(t: RfqTerms, precision: number, today: string): TermsError | null {
  if (t.limit.trim()) {
    const e = priceError(t.limit, { precision });
    if (e) return { field: "limit", message: e };
  } else if (t.executable) {
    return { field: "limit", message: "An executable request needs a limit price" };
  }
  const e = t.settlement ? settlementDateError(t.settlement, today) : null;
  return e ? { field: "settlement", message: e } : null;
}

/** rfqTermsFields are the RFQ's fields for the terms given; none when none are. */
export function rfqTermsFields(t: RfqTerms): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (t.limit.trim()) out.price_per_unit = t.limit.trim();
  if (t.executable) out.is_executable = true;
  if (t.settlement) out.settlement_date = t.settlement;
  return out;
}

/**
 * quoteValidity is a dealer's quote's validity: for the seconds typed
 * (blank: as long as the request), never past the request's own deadline,
 * where a quote has nothing left to answer; an error names a bad number.
 */
export function quoteValidity(seconds: string, rfqUntil: string | null, now: number): { validity: "gtd"; valid_until: string } | { validity: "gtc" } | { error: string } {
  const s = seconds.trim();
  if (s === "") return rfqUntil ? { validity: "gtd", valid_until: rfqUntil } : { validity: "gtc" };
  if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > 86_400) return { error: "Quote validity: between 1 and 86400 seconds" };
  let until = now + Number(s) * 1000;
  if (rfqUntil) until = Math.min(until, new Date(rfqUntil).getTime());
  return { validity: "gtd", valid_until: new Date(until).toISOString() };
}
