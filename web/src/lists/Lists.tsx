import { VenueLists } from "../rfq/VenueRequests";
import type { Venue } from "../state/venue";
import { Section, useVenue } from "../ui/components";
import { ListToQuote } from "./ListToQuote";
import { MyList } from "./MyList";
import { NewList } from "./NewList";

/** Lists is the portfolio (list) RFQ screen: a list ticket, the firm's lists with their quotes compared, and the lists it is asked to quote. */
export function Lists(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  if (v.isOperator) return <VenueLists venue={v} />;
  const mine = v.user?.participant_id;
  const all = [...v.orders.lists.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const sent = all.filter((l) => l.participant_id === mine);
  const received = all.filter((l) => l.participant_id !== mine);
  return (
    <div class="lists cols">
      <div class="col">
        {v.canTrade && <NewList venue={v} />}
        <Section title="My lists">
          {sent.length === 0 && <p class="muted">No lists yet.</p>}
          {sent.slice(0, 20).map((l) => (
            <MyList key={l.id} venue={v} l={l} />
          ))}
        </Section>
      </div>
      <div class="col">
        <Section title="Lists to quote">
          {received.length === 0 && <p class="muted">No lists to quote.</p>}
          {received.slice(0, 20).map((l) => (
            <ListToQuote key={l.id} venue={v} l={l} />
          ))}
        </Section>
      </div>
    </div>
  );
}
