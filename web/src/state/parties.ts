// The trader's own identifiers for the venue's order records (who the
// client is, who decided, who executed, in what capacity), kept in
// localStorage per user like the preferences (prefs.ts) and sent with
// every order the screen enters: offers, RFQs, quotes, lists and accepts
// (docs/guide.md, "Identifying the client and the decision makers").
import type { PrefStore } from "./prefs";

/** OrderParties are the four optional fields of an order's parties, by their REST names. */
export interface OrderParties {
  client_id_code: string;
  investment_decision_id: string;
  execution_decision_id: string;
  /** "" leaves the venue's default (DEAL). */
  trading_capacity: "" | "DEAL" | "MTCH" | "AOTC";
}

export const noParties: OrderParties = { client_id_code: "", investment_decision_id: "", execution_decision_id: "", trading_capacity: "" };

const capacities = new Set(["", "DEAL", "MTCH", "AOTC"]);

function key(userId: string): string {
  return `bondvenue.parties.${userId}`;
}

/** loadParties reads a user's identifiers; none when never saved or unreadable. */
export function loadParties(s: PrefStore | null, userId: string): OrderParties {
  if (!s || !userId) return noParties;
  try {
    const raw: unknown = JSON.parse(s.getItem(key(userId)) ?? "null");
    if (typeof raw !== "object" || raw === null) return noParties;
    const r = raw as Record<string, unknown>;
    const str = (k: keyof OrderParties) => (typeof r[k] === "string" ? (r[k] as string) : "");
    const cap = str("trading_capacity");
    return {
      client_id_code: str("client_id_code"),
      investment_decision_id: str("investment_decision_id"),
      execution_decision_id: str("execution_decision_id"),
      trading_capacity: capacities.has(cap) ? (cap as OrderParties["trading_capacity"]) : "",
    };
  } catch {
    return noParties;
  }
}

/** saveParties keeps a user's identifiers; a full or refused storage keeps them for the session only. */
export function saveParties(s: PrefStore | null, userId: string, p: OrderParties): void {
  if (!s || !userId) return;
  try {
    s.setItem(key(userId), JSON.stringify(p));
  } catch {
    /* kept in memory by the caller */
  }
}
