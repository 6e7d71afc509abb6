import { describe, expect, it } from "vitest";
import { ApiError } from "../src/client/api";
import { type BlotterFilter, type FilterRow, cancelEach, cancelledText, csv, keeps, openOnly, rangeError } from "../src/model/blotter";

const row: FilterRow = { instrumentId: "i1", side: "buy", status: "created", date: "2026-12-08" };
const all: BlotterFilter = { instrumentId: "", side: "", status: "", from: "", to: "" };

describe("the blotter's filters", () => {
  const cases: [string, BlotterFilter, FilterRow, boolean][] = [
    ["no filter keeps every row", all, row, true],
    ["the first view keeps an open offer", openOnly, row, true],
    ["the first view drops a cancelled offer", openOnly, { ...row, status: "cancelled" }, false],
    ["a status filter keeps a trade (it has none)", openOnly, { ...row, status: null }, true],
    ["instrument", { ...all, instrumentId: "i2" }, row, false],
    ["side kept", { ...all, side: "buy" }, row, true],
    ["side dropped", { ...all, side: "sell" }, row, false],
    ["from is included", { ...all, from: "2026-12-08" }, row, true],
    ["before from", { ...all, from: "2026-12-09" }, row, false],
    ["to is included", { ...all, to: "2026-12-08" }, row, true],
    ["after to", { ...all, to: "2026-12-07" }, row, false],
  ];
  for (const [name, f, r, want] of cases) {
    it(name, () => {
      expect(keeps(f, r)).toBe(want);
    });
  }
  it("name a range that ends before it starts", () => {
    expect(rangeError({ from: "2026-12-09", to: "2026-12-08" })).toBe("From 2026-12-09 is after To 2026-12-08");
    expect(rangeError({ from: "2026-12-08", to: "2026-12-08" })).toBeNull();
    expect(rangeError({ from: "", to: "2026-12-08" })).toBeNull();
  });
});

describe("the blotter as CSV", () => {
  it("quotes what needs quoting, CRLF line ends", () => {
    const got = csv(["Instrument", "Price"], [["DBR 2.30 15/02/2033", "99.5"], ['Say "hi", then', "1"]]);
    expect(got).toBe('Instrument,Price\r\nDBR 2.30 15/02/2033,99.5\r\n"Say ""hi"", then",1\r\n');
  });
  it("keeps a cell from being read as a formula, and a negative number as it is", () => {
    expect(csv(["a", "b"], [["=HYPERLINK(1)", "-0.25"]])).toBe("a,b\r\n'=HYPERLINK(1),-0.25\r\n");
  });
});

describe("Cancel all", () => {
  it("sends one cancel per open offer and counts each end", async () => {
    const sent: string[] = [];
    const got = await cancelEach(["o1", "o2", "o3", "o4", "o5"], async (id) => {
      sent.push(id);
      if (id === "o2") throw new ApiError(409, "The offer is not open");
      if (id === "o4") throw new ApiError(503, "The venue is busy or failing over; try again in a moment");
    });
    expect(sent.sort()).toEqual(["o1", "o2", "o3", "o4", "o5"]);
    expect(got).toEqual({ asked: 5, cancelled: 3, ended: 1, failed: ["The venue is busy or failing over; try again in a moment"] });
    expect(cancelledText(got)).toBe("Cancelled 3 of 5 open offers; 1 had already ended; 1 failed: The venue is busy or failing over; try again in a moment");
  });
  it("says how many it cancelled", () => {
    expect(cancelledText({ asked: 2, cancelled: 2, ended: 0, failed: [] })).toBe("Cancelled 2 open offers");
    expect(cancelledText({ asked: 1, cancelled: 1, ended: 0, failed: [] })).toBe("Cancelled 1 open offer");
    expect(cancelledText({ asked: 0, cancelled: 0, ended: 0, failed: [] })).toBe("No open offers to cancel");
  });
  it("asks nothing when nothing is open", async () => {
    let calls = 0;
    const got = await cancelEach([], async () => void calls++);
    expect([got.asked, calls]).toEqual([0, 0]);
  });
});
