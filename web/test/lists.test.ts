import { describe, expect, it } from "vitest";
import { bestQuote, dealerStates, examplePaste, parseLines } from "../src/lists/lines";
import { awaitingListAnswer } from "../src/model/rfq";
import type { Instrument, PortfolioQuote, PortfolioRFQ } from "../src/client/types";

const instruments = [
  { id: "i1", isin: "DE0001102580" },
  { id: "i2", isin: "FR0014007L00" },
] as Instrument[];

describe("parseLines", () => {
  it("reads pasted lines and CSV, skipping blanks and a header", () => {
    const got = parseLines("isin,side,quantity\nDE0001102580, buy, 1,000,000\n\nfr0014007l00;SELL;500000\r\nDE0001102580\tb\t250000", instruments);
    expect(got.errors).toEqual([]);
    expect(got.lines).toEqual([
      { instrument_id: "i1", direction: "bid", quantity: "1000000" },
      { instrument_id: "i2", direction: "ask", quantity: "500000" },
      { instrument_id: "i1", direction: "bid", quantity: "250000" },
    ]);
  });

  it("takes a spreadsheet's paste: tab-separated cells, nominals with thousands separators", () => {
    const paste = "ISIN\tSide\tNominal\nDE0001102580\tBuy\t2,000,000\nFR0014007L00\tSell\t1.500.000\t\nDE0001102580\tsell\t750 000\nFR0014007L00;buy;2,000,000\nDE0001102580,buy,3,000,000";
    const got = parseLines(paste, instruments);
    expect(got.errors).toEqual([]);
    expect(got.lines).toEqual([
      { instrument_id: "i1", direction: "bid", quantity: "2000000" },
      { instrument_id: "i2", direction: "ask", quantity: "1500000" },
      { instrument_id: "i1", direction: "ask", quantity: "750000" },
      { instrument_id: "i2", direction: "bid", quantity: "2000000" },
      { instrument_id: "i1", direction: "bid", quantity: "3000000" },
    ]);
    expect(parseLines("DE0001102580\tbuy\t2,00,000", instruments).errors).toEqual(["Line 1: the nominal must be a positive number, not 2,00,000"]);
  });

  it("gives as its example bonds the venue lists", () => {
    const got = parseLines(examplePaste(instruments), instruments);
    expect(got.errors).toEqual([]);
    expect(got.lines.map((l) => l.instrument_id)).toEqual(["i1", "i2"]);
  });

  it("names every bad line", () => {
    const got = parseLines("XS0000000000 buy 100\nDE0001102580 hold 100\nDE0001102580 sell -5\nDE0001102580 sell", instruments);
    expect(got.errors).toEqual([
      "Line 1: no instrument has ISIN XS0000000000",
      "Line 2: the side must be buy or sell, not hold",
      "Line 3: the nominal must be a positive number, not -5",
      "Line 4: give an ISIN, buy or sell, and a nominal",
    ]);
    expect(got.lines).toEqual([]);
  });

  it("refuses more than 200 lines", () => {
    const got = parseLines(Array.from({ length: 201 }, () => "DE0001102580 buy 1000").join("\n"), instruments);
    expect(got.errors).toEqual(["A list holds at most 200 lines, not 201"]);
  });
});

describe("bestQuote", () => {
  const q = (id: string, net: string | null, status = "created", at = "2026-11-29T10:00:00.000Z") =>
    ({ id, net_proceeds: net, status, createdAt: at }) as PortfolioQuote;
  it("takes the most net proceeds among live quotes, the earlier of equals", () => {
    expect(bestQuote([q("a", "-100.50"), q("b", "-99.99"), q("c", "5", "cancelled"), q("d", null)])?.id).toBe("b");
    expect(bestQuote([q("a", "10", "created", "2026-11-29T10:00:01.000Z"), q("b", "10.00")])?.id).toBe("b");
    expect(bestQuote([q("a", "1", "rejected")])).toBeNull();
  });
});

describe("a list's dealers", () => {
  const q = (participant_id: string, status: string, outcome: string | null, createdAt = "2026-11-29T10:00:00.000Z") =>
    ({ participant_id, status, outcome, createdAt }) as PortfolioQuote;
  it("each show their answer: quoted, declined, or none yet", () => {
    const l = { counterparties: ["d1", "d2", "d3", "d4"], quotes: [q("d1", "created", null), q("d2", "rejected", "declined"), q("d4", "created", "done")] };
    expect(dealerStates(l)).toEqual([
      { participantId: "d1", state: "quoted" },
      { participantId: "d2", state: "declined" },
      { participantId: "d3", state: "no answer" },
      { participantId: "d4", state: "done" },
    ]);
  });
});

describe("the lists awaiting the dealer's answer", () => {
  const l = (id: string, over: Partial<PortfolioRFQ> = {}) =>
    ({ id, participant_id: "R", status: "created", valid_until: "2026-11-29T10:10:00.000Z", quotes: [], ...over }) as PortfolioRFQ;
  it("count the open lists to the firm it has neither quoted nor declined", () => {
    const now = new Date("2026-11-29T10:00:00.000Z").getTime();
    const lists = [
      l("waiting"),
      l("also waiting"),
      l("quoted", { quotes: [{ participant_id: "D", outcome: null } as PortfolioQuote] }),
      l("declined", { quotes: [{ participant_id: "D", outcome: "declined" } as PortfolioQuote] }),
      l("expired", { valid_until: "2026-11-29T09:59:59.000Z" }),
      l("closed", { status: "closed" }),
      l("own", { participant_id: "D" }),
    ];
    expect(awaitingListAnswer(lists, "D", now)).toBe(2);
    expect(awaitingListAnswer(lists, null, now)).toBe(0);
  });
});
