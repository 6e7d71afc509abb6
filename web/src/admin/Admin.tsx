import { useEffect, useState } from "preact/hooks";
import { RiskLimits } from "../blotter/RiskLimits";
import type { Venue } from "../state/venue";
import type { Bucket, SettlementProvider } from "../client/types";
import { Action, Empty, Field, Section, useVenue } from "../ui/components";
import { Confirmed } from "../ui/forms";
import { Accounts, Allocations } from "./Firm";
import { KillSwitch } from "./KillSwitch";
import { Users } from "./Users";

/**
 * Admin is the firm admin's console: the kill switch (asked and reasoned),
 * users and their credentials, accounts, risk limits (read only),
 * allocations, buckets and settlement providers.
 */
export function Admin(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const [buckets, setBuckets] = useState<Bucket[]>([]);
  const [providers, setProviders] = useState<SettlementProvider[]>([]);
  const [version, setVersion] = useState(0);
  const refresh = () => setVersion((n) => n + 1);
  // change is an action that writes, then reloads the lists.
  const change = (method: string, path: string, body?: unknown) => async () => {
    await v.api.call(method, path, body);
    refresh();
  };
  useEffect(() => {
    void v.api.get<Bucket[]>("/participant/buckets").then(setBuckets).catch(() => {});
    void v.api
      .get<SettlementProvider[]>("/settlement-providers")
      .then((ps) => {
        for (const p of ps) v.names.set(p.id, p.provider); // errors name a provider by its id
        setProviders(ps);
      })
      .catch(() => {});
    void v.deals.loadRisk();
  }, [version]);
  const [name, setName] = useState("");
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const create = async () => {
    if (!name.trim()) throw new Error("Name the bucket");
    if (picked.size === 0) throw new Error("Pick at least one instrument");
    await v.api.call("POST", "/participant/buckets", {
      name: name.trim(),
      type: "private",
      participant_id: v.user?.participant_id,
      is_enabled: true,
      instruments: [...picked].map((id) => ({ id })),
    });
    setName("");
    setPicked(new Set());
    refresh();
    await v.loadBuckets();
  };
  // Deleting asks first: the row's Delete turns into Confirm and Keep.
  const [deleting, setDeleting] = useState<string | null>(null);
  const own = buckets.filter((b) => b.participant_id === v.user?.participant_id);
  return (
    <div class="admin cols">
      <div class="col">
        <KillSwitch venue={v} path="/participant/kill-switch" />
        <RiskLimits venue={v} />
        <Accounts venue={v} />
        <Section title="Buckets">
          <table class="grid" aria-label="Buckets">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col" class="num">Instruments</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {buckets.length === 0 && <Empty cols={4}>No buckets.</Empty>}
              {buckets.map((b) => (
                <tr key={b.id}>
                  <th scope="row">{b.name}</th>
                  <td>{b.type}</td>
                  <td class="num">{b.instruments.length}</td>
                  <td>
                    {own.includes(b) && deleting !== b.id && (
                      <button type="button" aria-label={"Delete bucket " + b.name} onClick={() => setDeleting(b.id)}>
                        Delete
                      </button>
                    )}
                    {own.includes(b) && deleting === b.id && (
                      <span class="actions">
                        <Action
                          venue={v}
                          class="danger"
                          label={"Confirm deleting bucket " + b.name}
                          run={async () => {
                            await change("DELETE", `/participant/buckets/${b.id}`)();
                            setDeleting(null);
                            await v.loadBuckets();
                          }}
                          done="Bucket deleted"
                        >
                          Delete {b.name}?
                        </Action>
                        <button type="button" aria-label={"Keep bucket " + b.name} onClick={() => setDeleting(null)}>
                          Keep
                        </button>
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <form class="stack" onSubmit={(e) => e.preventDefault()} aria-label="New bucket">
            <Field label="New bucket name">
              <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <fieldset class="picker">
              <legend>Instruments</legend>
              {v.instruments.map((i) => (
                <label key={i.id} class="inline">
                  <input
                    type="checkbox"
                    checked={picked.has(i.id)}
                    onChange={(e) => {
                      const next = new Set(picked);
                      if (e.currentTarget.checked) next.add(i.id);
                      else next.delete(i.id);
                      setPicked(next);
                    }}
                  />{" "}
                  {i.name}
                </label>
              ))}
            </fieldset>
            <Action venue={v} type="submit" class="primary" label="Create bucket" run={create} done="Bucket created" />
          </form>
        </Section>
      </div>
      <div class="col">
        <Section title="Settlement providers">
          <table class="grid" aria-label="Settlement providers">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Custody account</th>
                <th scope="col">Status</th>
                <th scope="col">Enabled</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {providers.length === 0 && <Empty cols={5}>No settlement providers.</Empty>}
              {providers.map((p) => (
                <tr key={p.id}>
                  <th scope="row">{p.provider}</th>
                  <td class="mono">{p.custody_account_number}</td>
                  <td>{p.status}</td>
                  <td>{p.enabled ? "yes" : "no"}</td>
                  <td class="actions">
                    {p.enabled ? (
                      <Confirmed
                        venue={v}
                        class="danger"
                        label={"Disable " + p.provider}
                        warning="The firm's trades can no longer settle through this provider."
                        run={(reason) => change("PUT", `/settlement-providers/${p.id}/toggle?reason=${encodeURIComponent(reason)}`)()}
                      >
                        Disable
                      </Confirmed>
                    ) : (
                      <Action venue={v} label={"Enable " + p.provider} run={change("PUT", `/settlement-providers/${p.id}/toggle`)}>
                        Enable
                      </Action>
                    )}
                    {p.status !== "default" && (
                      <Action
                        venue={v}
                        label={"Make " + p.provider + " the default"}
                        run={change("PUT", `/settlement-providers/${p.id}/participant/${v.user?.participant_id}/default`)}
                      >
                        Make default
                      </Action>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
        {v.user?.participant_id && <Users venue={v} participantId={v.user.participant_id} />}
        <Allocations venue={v} />
      </div>
    </div>
  );
}
