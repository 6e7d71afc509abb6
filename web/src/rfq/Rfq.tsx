import type { Venue } from "../state/venue";
import { Action, Empty, Section, useVenue } from "../ui/components";
import { downloadExecutions } from "./executions";
import { IncomingRfq } from "./IncomingRfq";
import { NewRfq } from "./NewRfq";
import { RfqRequest } from "./RfqRequest";
import { VenueRequests } from "./VenueRequests";

/** Rfq is the RFQ screen: the request ticket and the firm's requests with their quotes; the requests it is asked to quote. */
export function Rfq(props: { venue: Venue; instrumentId?: string }) {
  const v = useVenue(props.venue);
  if (v.isOperator) return <VenueRequests venue={v} />;
  const mine = v.user?.participant_id;
  const sent = [...v.orders.rfqs.values()].filter((r) => r.participant_id === mine).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const received = [...v.orders.rfqs.values()].filter((r) => r.participant_id !== mine).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return (
    <div class="rfq cols">
      <div class="col">
        {v.canTrade && <NewRfq venue={v} instrumentId={props.instrumentId} />}
        <Section
          title="My requests"
          actions={
            sent.length > 0 && (
              <Action venue={v} label="Download today's execution records (CSV)" run={() => downloadExecutions(v)}>
                Execution records (CSV)
              </Action>
            )
          }
        >
          {sent.length === 0 && <p class="muted">No requests yet.</p>}
          {sent.slice(0, 30).map((r) => (
            <RfqRequest key={r.id} venue={v} r={r} />
          ))}
        </Section>
      </div>
      <div class="col">
        <Section title="Incoming requests">
          <table class="grid" aria-label="Incoming requests">
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">From</th>
                <th scope="col">Side</th>
                <th scope="col">Instrument</th>
                <th scope="col" class="num">Quantity</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">My quote</th>
              </tr>
            </thead>
            <tbody>
              {received.length === 0 && <Empty cols={8}>No requests for quotes.</Empty>}
              {received.slice(0, 50).map((r) => (
                <IncomingRfq key={r.id} venue={v} r={r} />
              ))}
            </tbody>
          </table>
        </Section>
      </div>
    </div>
  );
}
