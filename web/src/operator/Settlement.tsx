import { useEffect, useState } from "preact/hooks";
import { query } from "../client/api";
import type { Account, AuditEntry, DeferralTable, ParticipantRecord, SettlementProvider } from "../client/types";
import type { Venue } from "../state/venue";
import { Action, Empty, Field, Section, Time } from "../ui/components";
import { Confirmed, FormError, Submit, useForm } from "../ui/forms";

/** Settlement is the operator's settlement providers of every firm, a new provider, and the settlement links between CSDs. */
export function Settlement(props: { venue: Venue }) {
  const v = props.venue;
  const [firms, setFirms] = useState<ParticipantRecord[]>([]);
  const [firm, setFirm] = useState("");
  const [providers, setProviders] = useState<SettlementProvider[]>([]);
  const [accounts, setAccounts] = useState<Account[]>([]);
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((n) => n + 1);
  useEffect(() => {
    void v.api
      .get<ParticipantRecord[]>("/participants?limit=1000")
      .then((ps) => {
        setFirms(ps);
        if (!firm && ps[0]) setFirm(ps[0].id);
      })
      .catch((e: Error) => v.notify("error", e.message));
  }, []);
  useEffect(() => {
    if (!firm) return;
    void v.api
      .get<SettlementProvider[]>("/settlement-providers" + query({ participant_id: firm, limit: 1000 }))
      .then(setProviders)
      .catch((e: Error) => v.notify("error", e.message));
    void v.api.get<Account[]>("/accounts" + query({ participant_id: firm, limit: 1000 })).then(setAccounts).catch(() => {});
  }, [firm, version]);
  const name = firms.find((p) => p.id === firm)?.name ?? "";
  return (
    <div class="cols">
      <div class="col">
        <Section title="Settlement providers">
          <Field label="Firm">
            <select value={firm} onChange={(e) => setFirm(e.currentTarget.value)}>
              {firms.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </Field>
          <table class="grid" aria-label={"Settlement providers of " + name}>
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
                        run={async (reason) => {
                          await v.api.call("PUT", `/settlement-providers/${p.id}/toggle?reason=${encodeURIComponent(reason)}`);
                          reload();
                        }}
                        done="Provider disabled"
                      >
                        Disable
                      </Confirmed>
                    ) : (
                      <Action
                        venue={v}
                        label={"Enable " + p.provider}
                        run={async () => {
                          await v.api.call("PUT", `/settlement-providers/${p.id}/toggle`);
                          reload();
                        }}
                      >
                        Enable
                      </Action>
                    )}
                    {p.status !== "default" && (
                      <Action
                        venue={v}
                        label={"Make " + p.provider + " the default"}
                        run={async () => {
                          await v.api.call("PUT", `/settlement-providers/${p.id}/participant/${firm}/default`);
                          reload();
                        }}
                        done="Default provider set"
                      >
                        Make default
                      </Action>
                    )}
                    {accounts.map((a) => (
                      <Action
                        key={a.id}
                        venue={v}
                        label={`Make ${p.provider} the default of account ${a.number}`}
                        disabled={a.default_settlement_provider_id === p.id}
                        run={async () => {
                          await v.api.call("PUT", `/settlement-providers/${p.id}/account/${a.id}/default`);
                          reload();
                        }}
                        done="Account's default provider set"
                      >
                        Default of {a.number}
                      </Action>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
        {firm && <NewProvider venue={v} firm={firm} name={name} created={reload} />}
      </div>
      <div class="col">
        <Links venue={v} />
      </div>
    </div>
  );
}

function NewProvider(props: { venue: Venue; firm: string; name: string; created: () => void }) {
  const v = props.venue;
  const blank = { provider: "", custody_account_number: "", agent_name: "", csd_bic11: "" };
  const [f, setF] = useState(blank);
  const form = useForm(v, ["provider", "custody_account_number", "agent_name", "csd_bic11", "participant_id"]);
  const create = form.run(async () => {
    await v.api.call("POST", "/admin/settlement-providers", { participant_id: props.firm, ...f });
    setF(blank);
    props.created();
  }, "Provider added");
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <Section title={"New provider for " + props.name}>
      <form class="stack" aria-label="New settlement provider" onSubmit={(e) => e.preventDefault()}>
        <Field label="Provider" error={form.error("provider")}>
          <input value={f.provider} onInput={set("provider")} />
        </Field>
        <Field label="Custody account number" error={form.error("custody_account_number")}>
          <input value={f.custody_account_number} onInput={set("custody_account_number")} />
        </Field>
        <Field label="Agent name" error={form.error("agent_name")}>
          <input value={f.agent_name} onInput={set("agent_name")} />
        </Field>
        <Field label="CSD BIC11" error={form.error("csd_bic11")}>
          <input value={f.csd_bic11} onInput={set("csd_bic11")} />
        </Field>
        <FormError form={form} />
        <Submit label="Add provider" run={create} />
      </form>
    </Section>
  );
}

/** Links are the pairs of CSDs (BIC11) between which the venue settles. */
function Links(props: { venue: Venue }) {
  const v = props.venue;
  const [links, setLinks] = useState<[string, string][]>([]);
  const [a, setA] = useState("");
  const [b, setB] = useState("");
  const form = useForm(v, ["links"]);
  useEffect(() => {
    void v.api
      .get<{ links: [string, string][] }>("/admin/settlement-links")
      .then((l) => setLinks(l.links))
      .catch((e: Error) => v.notify("error", e.message));
  }, []);
  const put = async (next: [string, string][], reason: string) => {
    const l = await v.api.call<{ links: [string, string][] }>("PUT", "/admin/settlement-links", reason ? { links: next, reason } : { links: next });
    setLinks(l.links);
  };
  const add = form.run(async () => {
    await put([...links, [a.trim().toUpperCase(), b.trim().toUpperCase()]], "");
    setA("");
    setB("");
  }, "Settlement link added");
  return (
    <Section title="Settlement links">
      <table class="grid" aria-label="Settlement links">
        <thead>
          <tr>
            <th scope="col">CSD</th>
            <th scope="col">CSD</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {links.length === 0 && <Empty cols={3}>No links: trades settle only within one CSD.</Empty>}
          {links.map(([x, y], i) => (
            <tr key={x + y}>
              <td class="mono">{x}</td>
              <td class="mono">{y}</td>
              <td>
                <Confirmed
                  venue={v}
                  class="danger"
                  label={`Remove the link ${x}–${y}`}
                  warning="Trades between firms on these two CSDs are refused once the link is gone."
                  run={(reason) => put(links.filter((_, j) => j !== i), reason)}
                  done="Settlement link removed"
                >
                  Remove
                </Confirmed>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="row" aria-label="New settlement link" onSubmit={(e) => e.preventDefault()}>
        <Field label="CSD BIC11" error={form.error("links")}>
          <input value={a} onInput={(e) => setA(e.currentTarget.value)} />
        </Field>
        <Field label="Linked CSD BIC11">
          <input value={b} onInput={(e) => setB(e.currentTarget.value)} />
        </Field>
        <Submit label="Add link" run={add} />
        <FormError form={form} />
      </form>
    </Section>
  );
}

/**
 * Deferrals is the post-trade transparency table the venue runs with: a
 * setting of the serve command, read from the audit trail, which records
 * each table an instance starts with (docs/operations.md).
 */
export function Deferrals(props: { venue: Venue }) {
  const v = props.venue;
  const [entry, setEntry] = useState<AuditEntry | null | undefined>(undefined);
  useEffect(() => {
    void v.api
      .get<AuditEntry[]>("/admin/audit-log" + query({ entity: "deferral_table:venue", limit: 1000 }))
      .then((es) => setEntry(es[es.length - 1] ?? null))
      .catch((e: Error) => v.notify("error", e.message));
  }, []);
  const table = entry?.after as DeferralTable | undefined;
  return (
    <div class="cols">
      <div class="col">
        <Section title="Deferral classes">
          {entry === null && <p class="muted">The audit trail holds no deferral table yet.</p>}
          {entry && (
            <p class="muted">
              {table?.name} — in force since <Time at={entry.at} />. The table is set when the venue starts (serve --deferral-table); see
              the operations guide.
            </p>
          )}
          <table class="grid" aria-label="Deferral classes">
            <thead>
              <tr>
                <th scope="col">Class</th>
                <th scope="col">Industries</th>
                <th scope="col" class="num">Least issued</th>
                <th scope="col">About</th>
              </tr>
            </thead>
            <tbody>
              {(table?.classes ?? []).map((c) => (
                <tr key={c.class}>
                  <th scope="row">{c.class}</th>
                  <td class="wrap">{(c.industries ?? []).join(", ") || "any"}</td>
                  <td class="num">{c.min_amt_issue ?? ""}</td>
                  <td class="wrap">{c.about ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      </div>
      <div class="col">
        <Section title="Deferral bands">
          <table class="grid" aria-label="Deferral bands">
            <thead>
              <tr>
                <th scope="col">Band</th>
                <th scope="col">Class</th>
                <th scope="col" class="num">From size</th>
                <th scope="col">Price shown</th>
                <th scope="col">Size shown</th>
              </tr>
            </thead>
            <tbody>
              {(table?.bands ?? []).map((b) => (
                <tr key={b.id}>
                  <th scope="row">{b.id}</th>
                  <td>{b.class}</td>
                  <td class="num">{b.from}</td>
                  <td>{delay(b.price)}</td>
                  <td>{delay(b.volume)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      </div>
    </div>
  );
}

/** delay says a band's delay in words: now, N minutes, end of day, N weeks. */
export function delay(d: string): string {
  if (d === "now") return "at once";
  if (d === "eod") return "end of day";
  const m = /^(\d+)([mw])$/.exec(d);
  if (!m) return d;
  return `after ${m[1]} ${m[2] === "m" ? "min" : m[1] === "1" ? "week" : "weeks"}`;
}
