import * as f from "../model/format";
import { cmp, parse, percentOf } from "../model/decimal";
import type { Venue } from "../state/venue";
import { Empty, Num, Section } from "../ui/components";

/** RiskLimits shows the use of each of the firm's risk limits, by name (the venue's code on hover); a breach is marked. */
export function RiskLimits(props: { venue: Venue }) {
  const v = props.venue;
  return (
    <Section title="Risk limits">
      <table class="grid" aria-label="Risk limits">
        <thead>
          <tr>
            <th scope="col">Limit</th>
            <th scope="col" class="num">Value</th>
            <th scope="col" class="num">Used</th>
            <th scope="col">Use</th>
          </tr>
        </thead>
        <tbody>
          {v.deals.risk.length === 0 && <Empty cols={4}>No risk limits.</Empty>}
          {v.deals.risk.map((r) => {
            const val = parse(r.value);
            const used = parse(r.used);
            const pct = percentOf(r.used, r.value);
            const over = val && used ? cmp(used, val) > 0 : false;
            return (
              <tr key={r.id} data-limit={r.name}>
                <th scope="row" title={r.name}>
                  {f.limitName(r.name)}
                </th>
                <Num>{f.quantity(r.value)}</Num>
                <Num>{f.quantity(r.used)}</Num>
                <td>
                  <meter min={0} max={100} low={70} high={90} optimum={0} value={Math.min(pct, 100)} aria-label={`${f.limitName(r.name)} use ${pct.toFixed(1)} percent`} class={over ? "over" : ""} />
                  <span class="small muted"> {pct.toFixed(1)} %</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Section>
  );
}
