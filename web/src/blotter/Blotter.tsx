import { useState } from "preact/hooks";
import { openOnly } from "../model/blotter";
import type { Venue } from "../state/venue";
import { useVenue } from "../ui/components";
import { BlotterFilters } from "./Filters";
import { OfferBlotter } from "./OfferBlotter";
import { RiskLimits } from "./RiskLimits";
import { TradeBlotter } from "./TradeBlotter";

/** Blotter is the firm's offers and quotes, its trades, and its risk limits' use; one set of filters narrows both lists. */
export function Blotter(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const [filter, setFilter] = useState(openOnly);
  return (
    <div class="blotter">
      <BlotterFilters venue={v} filter={filter} onChange={setFilter} />
      <OfferBlotter venue={v} filter={filter} />
      <TradeBlotter venue={v} filter={filter} />
      <RiskLimits venue={v} />
    </div>
  );
}
