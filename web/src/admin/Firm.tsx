import { useEffect, useState } from "preact/hooks";
import { query } from "../client/api";
import type { Account, Allocation } from "../client/types";
import * as f from "../model/format";
import type { Venue } from "../state/venue";
import { Empty, Num, Section, Time } from "../ui/components";

/** Accounts are the firm's accounts (the operator opens them). */
export function Accounts(props: { venue: Venue }) {
  const v = props.venue;
  const [accounts, setAccounts] = useState<(Account & { type?: string; status?: string })[]>([]);
  useEffect(() => {
    void v.api.get<Account[]>("/accounts" + query({ limit: 1000 })).then(setAccounts).catch((e: Error) => v.notify("error", e.message));
  }, []);
  return (
    <Section title="Accounts">
      <table class="grid" aria-label="Accounts">
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {accounts.length === 0 && <Empty cols={3}>No accounts.</Empty>}
          {accounts.map((a) => (
            <tr key={a.id}>
              <th scope="row" class="mono">
                {a.number}
              </th>
              <td>{a.type ?? ""}</td>
              <td>{a.status ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted small">The venue operator opens and closes accounts.</p>
    </Section>
  );
}

/** Allocations are the firm's splits of its side of its trades to its accounts, newest first. */
export function Allocations(props: { venue: Venue }) {
  const v = props.venue;
  const [list, setList] = useState<Allocation[]>([]);
  useEffect(() => {
    void v.api.get<Allocation[]>("/allocations" + query({ limit: 200 })).then(setList).catch((e: Error) => v.notify("error", e.message));
  }, [v.deals.allocations.size]);
  return (
    <Section title="Allocations">
      <table class="grid" aria-label="Allocations">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Side</th>
            <th scope="col">Accounts</th>
            <th scope="col" class="num">Quantity</th>
            <th scope="col">Late</th>
          </tr>
        </thead>
        <tbody>
          {list.length === 0 && <Empty cols={5}>No allocations.</Empty>}
          {list.map((a) => (
            <tr key={a.trade_id} title={"Trade " + a.trade_id}>
              <td>
                <Time at={a.createdAt} />
              </td>
              <td>{f.side(a.direction)}</td>
              <td class="wrap">{a.allocations.map((x) => v.accountNumber(x.account_id)).join(", ")}</td>
              <Num>{a.allocations.map((x) => f.quantity(x.quantity)).join(" + ")}</Num>
              <td>{a.late ? "late" : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
