// How a trade reads in the blotter: a participant sees its side and the
// counterparty; the venue operator, party to neither side, sees both.
import type { Trade } from "./types";

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
