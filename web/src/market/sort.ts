// The market grid's order: by any column, up or down, rows without a
// value (no bid, no trade yet) last either way, ties in the grid's own
// order (maturity, then name).
import { cmpNum, parse } from "../model/decimal";

export type SortDir = "ascending" | "descending";

/** Sort is the grid's order: a column and a direction; column "" keeps the given order. */
export interface Sort {
  column: string;
  dir: SortDir;
}

type Value = string | number | null | undefined;

/** sortRows orders rows by the value a column reads of each (decimals exactly, text by locale), empty values last. */
export function sortRows<T>(rows: readonly T[], s: Sort, value: (row: T, column: string) => Value): T[] {
  if (!s.column) return [...rows];
  const sign = s.dir === "ascending" ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: value(row, s.column) }))
    .sort((a, b) => {
      const ea = a.v === null || a.v === undefined || a.v === "";
      const eb = b.v === null || b.v === undefined || b.v === "";
      if (ea || eb) return ea === eb ? a.i - b.i : ea ? 1 : -1;
      const numeric = parse(a.v) !== null && parse(b.v) !== null;
      const c = numeric ? cmpNum(a.v, b.v) : String(a.v).localeCompare(String(b.v));
      return c * sign || a.i - b.i;
    })
    .map((x) => x.row);
}

/** nextSort is the order after a click on a column's header: that column ascending, or the other way when it is already sorted by it. */
export function nextSort(s: Sort, column: string): Sort {
  if (s.column !== column) return { column, dir: "ascending" };
  return { column, dir: s.dir === "ascending" ? "descending" : "ascending" };
}
