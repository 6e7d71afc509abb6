import { useEffect, useState } from "preact/hooks";
import type { ExecutionRecord, MarketMark } from "../client/types";
import { responseTime, saving } from "../model/execution";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import { Empty, Num, Time } from "../ui/components";

/** ExecutionRecordView is a request's best-execution record, read from the venue when opened and again when the request changes. */
export function ExecutionRecordView(props: { venue: Venue; rfqId: string; title: string; version: string }) {
  const v = props.venue;
  const [rec, setRec] = useState<ExecutionRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    v.api
      .get<ExecutionRecord>(`/participant/rfq/${props.rfqId}/execution-record`)
      .then((r) => !stale && (setRec(r), setError(null)))
      .catch((e: Error) => !stale && setError(e.message));
    return () => {
      stale = true;
    };
  }, [props.rfqId, props.version]);
  if (error) return <p class="error small">The execution record could not be read: {error}</p>;
  if (!rec) return <p class="muted small">Reading the execution record…</p>;
  const prec = v.instrument(rec.instrument_id)?.precision ?? 4;
  return (
    <section class="execution" aria-label={"Execution record of " + props.title}>
      <dl class="preview">
        <dt>Sent</dt>
        <dd>
          <Time at={rec.sent_at} />
        </dd>
        <dt>Market when sent</dt>
        <dd>{mark(rec.market_at_sent, prec)}</dd>
        <dt>Accepted</dt>
        <dd>{rec.accepted_at ? <Time at={rec.accepted_at} /> : "–"}</dd>
        <dt>Market at the accept</dt>
        <dd>{mark(rec.market_at_accept, prec)}</dd>
        <dt>Done price</dt>
        <dd>{f.price(rec.done_price, prec)}</dd>
        <dt>Cover</dt>
        <dd>{f.price(rec.cover_price, prec)}</dd>
        <dt>Against the cover</dt>
        <dd>{rec.done_price === null ? "not done" : saving(rec.saving_vs_cover, rec.saving_vs_cover_amount, rec.currency, prec)}</dd>
      </dl>
      <table class="grid" aria-label={"Dealers of " + props.title}>
        <thead>
          <tr>
            <th scope="col">Dealer</th>
            <th scope="col">Answered</th>
            <th scope="col" class="num">Response time</th>
            <th scope="col" class="num">Price</th>
            <th scope="col" class="num">Yield</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {rec.dealers.length === 0 && <Empty cols={6}>No dealer was asked.</Empty>}
          {rec.dealers.map((d) => {
            const last = d.quotes[d.quotes.length - 1];
            return (
              <tr key={d.participant_id}>
                <td>{d.name}</td>
                <td>{d.responded_at ? <Time at={d.responded_at} /> : "no answer"}</td>
                <Num>{responseTime(d.response_time_us)}</Num>
                <Num>{last && last.price !== null ? f.price(last.price, prec) : "–"}</Num>
                <Num>{last ? f.yieldPct(last.yield) : "–"}</Num>
                <td>{d.declined ? "declined" : d.outcome ? f.outcomeLabel(d.outcome) : rec.status === "created" ? "open" : "–"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/** mark is the market at a moment: best bid / best ask, and the indicative mid. */
function mark(m: MarketMark | null, prec: number): string {
  if (!m) return "–";
  return `${f.price(m.best_bid, prec)} / ${f.price(m.best_ask, prec)}` + (m.indicative_mid !== null ? `, indicative mid ${f.price(m.indicative_mid, prec)}` : "");
}
