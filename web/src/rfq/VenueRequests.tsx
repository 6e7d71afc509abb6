import type { Offer, PortfolioRFQ } from "../client/types";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import { Empty, Num, Section, Time, useVenue } from "../ui/components";

/**
 * VenueRequests is the operator's RFQ screen: every request for quote on
 * the venue, whoever sent it, with its dealers and outcome. The operator
 * neither asks nor quotes; it watches (the venue's requests are not "its
 * own", so the firm's "My requests" view would always be empty).
 */
export function VenueRequests(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const rows = [...v.orders.rfqs.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return (
    <div class="rfq venue-requests">
      <Section title="Requests on the venue">
        <table class="grid" aria-label="Requests on the venue">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">From</th>
              <th scope="col">Side</th>
              <th scope="col">Instrument</th>
              <th scope="col" class="num">Quantity</th>
              <th scope="col">Dealers</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && <Empty cols={8}>No requests for quotes on the venue yet.</Empty>}
            {rows.slice(0, 200).map((r) => (
              <RequestRow key={r.id} venue={v} r={r} />
            ))}
          </tbody>
        </table>
      </Section>
    </div>
  );
}

function RequestRow(props: { venue: Venue; r: Offer }) {
  const { venue: v, r } = props;
  const ins = v.instrument(r.instrument_id);
  const dealers = (r.counterparties ?? []).map((id) => v.counterpartyName(id));
  return (
    <tr data-rfq={r.id}>
      <td>
        <Time at={r.createdAt} />
      </td>
      <td>{r.participant?.name ?? v.counterpartyName(r.participant_id)}</td>
      <td>{f.side(r.direction)}</td>
      <td>{ins ? <a href={`#/instrument/${ins.id}`}>{ins.name}</a> : (r.instrument?.name ?? "")}</td>
      <Num>{f.quantity(r.quantity)}</Num>
      <td class="small">{dealers.length > 0 ? dealers.join(", ") : "every dealer"}</td>
      <td>{r.valid_until ? <Time at={r.valid_until} /> : "–"}</td>
      <td>{r.status === "created" ? "open" : r.status}</td>
    </tr>
  );
}

/** VenueLists is the operator's Lists screen: every portfolio list on the venue, with its dealers and quotes. */
export function VenueLists(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const rows = [...v.orders.lists.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return (
    <div class="lists venue-lists">
      <Section title="Lists on the venue">
        <table class="grid" aria-label="Lists on the venue">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">From</th>
              <th scope="col" class="num">Lines</th>
              <th scope="col">Dealers</th>
              <th scope="col" class="num">Quotes</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && <Empty cols={7}>No lists on the venue yet.</Empty>}
            {rows.slice(0, 100).map((l) => (
              <ListRow key={l.id} venue={v} l={l} />
            ))}
          </tbody>
        </table>
      </Section>
    </div>
  );
}

function ListRow(props: { venue: Venue; l: PortfolioRFQ }) {
  const { venue: v, l } = props;
  const answered = l.quotes.filter((q) => q.net_proceeds !== null).length;
  return (
    <tr data-list={l.id}>
      <td>
        <Time at={l.createdAt} />
      </td>
      <td>{v.counterpartyName(l.participant_id)}</td>
      <Num>{String(l.lines.length)}</Num>
      <td class="small">{l.counterparties.map((id) => v.counterpartyName(id)).join(", ")}</td>
      <Num>{`${answered} of ${l.counterparties.length}`}</Num>
      <td>
        <Time at={l.valid_until} />
      </td>
      <td>{l.status === "created" ? "open" : l.status}</td>
    </tr>
  );
}
