import type { Instrument } from "../client/types";
import * as f from "../model/format";
import { Section } from "../ui/components";

/** StaticData lists the instrument's reference data. */
export function StaticData(props: { ins: Instrument }) {
  const { ins } = props;
  const rows: [string, string][] = [
    ["Issuer", ins.issuer],
    ["ISIN", ins.isin],
    ["Coupon", f.coupon(ins.coupon) + " " + ins.coupon_frequency],
    ["Day count", ins.day_count],
    ["Maturity", f.date(ins.maturity)],
    ["Currency", ins.currency],
    ["Industry", ins.industry],
    ["Country", ins.country_region],
    ["Rank", ins.rank],
    ["Min piece", f.quantity(ins.min_piece)],
    ["Min increment", f.quantity(ins.min_increment)],
    ["Amount outstanding", f.quantity(ins.amt_outstanding)],
  ];
  const sd = ins.static_data ?? {};
  for (const k of ["ticker", "settlement_calendar", "settlement_days", "pay_rank"]) if (typeof sd[k] === "string") rows.push([k.replace(/_/g, " "), sd[k] as string]);
  return (
    <Section title="Static data">
      <dl class="static">
        {rows.map(([k, val]) => (
          <>
            <dt key={k + "t"}>{k}</dt>
            <dd key={k + "d"}>{val}</dd>
          </>
        ))}
      </dl>
    </Section>
  );
}
