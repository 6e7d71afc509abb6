import * as f from "../model/format";
import type { Venue } from "../state/venue";

/** downloadExecutions saves the best-execution records of the RFQs the firm sent today (local day) as CSV. */
export async function downloadExecutions(v: Venue): Promise<void> {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const end = new Date(start.getTime() + 86_400_000);
  const csv = await v.api.csv(`/participant/rfq/execution-records?from=${start.toISOString()}&to=${end.toISOString()}`);
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `execution-records-${f.dayKey(start)}.csv`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
