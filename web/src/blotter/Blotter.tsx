import type { Venue } from "../state/venue";
import { useVenue } from "../ui/components";
import { OfferBlotter } from "./OfferBlotter";
import { RiskLimits } from "./RiskLimits";
import { TradeBlotter } from "./TradeBlotter";

/** Blotter is the firm's offers and quotes, its trades, and its risk limits' use. */
export function Blotter(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  return (
    <div class="blotter">
      <OfferBlotter venue={v} />
      <TradeBlotter venue={v} />
      <RiskLimits venue={v} />
    </div>
  );
}
