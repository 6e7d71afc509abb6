import { useEffect, useState } from "preact/hooks";
import type { Account, ParticipantRecord } from "../client/types";
import { KillSwitch } from "../admin/KillSwitch";
import { Users } from "../admin/Users";
import type { Venue } from "../state/venue";
import { Action, Empty, Field, Section } from "../ui/components";
import { Confirmed, FormError, Submit, leiIssue, useForm } from "../ui/forms";

/** riskLimitNames are the limits a firm may have (docs/guide.md, "Risk limits"). */
export const riskLimitNames = ["MAX_OFFER", "MAX_OFFER_VALUE", "ALL_OFFER_SUM", "ALL_OFFER_USER_SUM"] as const;

/** Participants is the operator's firms: the list, onboarding, and one firm's accounts, users, limits, kill switch and counterparties. */
export function Participants(props: { venue: Venue; selected?: string }) {
  const v = props.venue;
  const [firms, setFirms] = useState<ParticipantRecord[]>([]);
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((n) => n + 1);
  useEffect(() => {
    void v.api
      .get<ParticipantRecord[]>("/participants?limit=1000")
      .then((ps) => {
        for (const p of ps) v.names.set(p.id, p.name);
        setFirms(ps);
      })
      .catch((e: Error) => v.notify("error", e.message));
  }, [version]);
  const firm = firms.find((p) => p.id === props.selected);
  return (
    <div class="cols">
      <div class="col">
        <Section title="Participants">
          <table class="grid" aria-label="Participants">
            <thead>
              <tr>
                <th scope="col">Firm</th>
                <th scope="col">LEI</th>
                <th scope="col">Country</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {firms.length === 0 && <Empty cols={4}>No participants.</Empty>}
              {firms.map((p) => (
                <tr key={p.id} class={p.id === firm?.id ? "best" : undefined}>
                  <th scope="row">
                    <a href={"#/operator/participants/" + p.id}>{p.name}</a>
                  </th>
                  <td class="mono">{p.lei}</td>
                  <td>{p.country ?? ""}</td>
                  <td>{p.status ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
        <Onboard venue={v} onboarded={(id) => {
          reload();
          location.hash = "#/operator/participants/" + id;
        }} />
      </div>
      <div class="col wide">
        {firm ? (
          <Firm key={firm.id} venue={v} firm={firm} firms={firms} changed={reload} />
        ) : (
          <p class="muted banner">Pick a firm to manage its accounts, users, risk limits, kill switch and counterparties.</p>
        )}
      </div>
    </div>
  );
}

/** Onboard is a new firm: its name, LEI (checked here, ISO 17442) and country. */
function Onboard(props: { venue: Venue; onboarded: (id: string) => void }) {
  const v = props.venue;
  const [f, setF] = useState({ name: "", lei: "", country: "" });
  const form = useForm(v, ["name", "lei", "country"]);
  const onboard = form.run(async () => {
    const issue = leiIssue(f.lei);
    if (issue) {
      form.fail({ lei: issue });
      return;
    }
    const p = await v.api.call<ParticipantRecord>("POST", "/admin/participants", {
      name: f.name.trim(),
      lei: f.lei.trim().toUpperCase(),
      country: f.country.trim().toUpperCase(),
    });
    setF({ name: "", lei: "", country: "" });
    props.onboarded(p.id);
  }, "Firm onboarded");
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <Section title="Onboard a firm">
      <form class="stack" aria-label="Onboard a firm" onSubmit={(e) => e.preventDefault()}>
        <Field label="Firm name" error={form.error("name")}>
          <input value={f.name} onInput={set("name")} />
        </Field>
        <Field label="LEI" error={form.error("lei")} hint="20 characters, ISO 17442">
          <input class="mono" maxLength={20} value={f.lei} onInput={set("lei")} />
        </Field>
        <Field label="Country" error={form.error("country")} hint="ISO 3166 code, e.g. DE">
          <input maxLength={2} value={f.country} onInput={set("country")} />
        </Field>
        <FormError form={form} />
        <Submit label="Onboard firm" run={onboard} />
      </form>
    </Section>
  );
}

function Firm(props: { venue: Venue; firm: ParticipantRecord; firms: ParticipantRecord[]; changed: () => void }) {
  const { venue: v, firm } = props;
  return (
    <div class="cols">
      <div class="col">
        <FirmStatus venue={v} firm={firm} changed={props.changed} />
        <Accounts venue={v} firm={firm} changed={props.changed} />
        <RiskLimits venue={v} firm={firm} changed={props.changed} />
        <KillSwitch venue={v} path={`/admin/participants/${firm.id}/kill-switch`} firm={firm.name} />
      </div>
      <div class="col">
        <Users venue={v} participantId={firm.id} firm={firm.name} />
        <Counterparties venue={v} firm={firm} firms={props.firms} changed={props.changed} />
      </div>
    </div>
  );
}

/** FirmStatus is a firm's status: suspending it refuses its business, so it is asked and reasoned. */
function FirmStatus(props: { venue: Venue; firm: ParticipantRecord; changed: () => void }) {
  const { venue: v, firm } = props;
  const set = (status: string) => async (reason: string) => {
    await v.api.call("PUT", `/admin/participants/${firm.id}`, reason ? { entity: { status }, reason } : { entity: { status } });
    props.changed();
  };
  const active = (firm.status ?? "active") === "active";
  return (
    <Section title={firm.name}>
      <dl class="static">
        <dt>LEI</dt>
        <dd class="mono">{firm.lei}</dd>
        <dt>Status</dt>
        <dd>{firm.status ?? ""}</dd>
        <dt>KYC</dt>
        <dd>{firm.kyc_status ?? ""}</dd>
      </dl>
      {active ? (
        <Confirmed venue={v} class="danger" label={"Suspend " + firm.name} warning="A suspended firm's users are refused." run={set("suspended")} done="Firm suspended">
          Suspend
        </Confirmed>
      ) : (
        <Action venue={v} label={"Reactivate " + firm.name} run={() => set("active")("")} done="Firm reactivated">
          Reactivate
        </Action>
      )}
    </Section>
  );
}

function Accounts(props: { venue: Venue; firm: ParticipantRecord; changed: () => void }) {
  const { venue: v, firm } = props;
  const [accounts, setAccounts] = useState<(Account & { type?: string; status?: string })[]>(firm.accounts ?? []);
  const [number, setNumber] = useState("");
  const [type, setType] = useState("principal");
  const form = useForm(v, ["number", "type"]);
  useEffect(() => {
    void v.api.get<Account[]>(`/accounts?participant_id=${firm.id}&limit=1000`).then(setAccounts).catch(() => {});
  }, [firm.id]);
  const create = form.run(async () => {
    const a = await v.api.call<Account>("POST", "/admin/accounts", { participant_id: firm.id, number: number.trim(), type });
    setAccounts([...accounts, a]);
    setNumber("");
  }, "Account opened");
  return (
    <Section title={"Accounts of " + firm.name}>
      <table class="grid" aria-label={"Accounts of " + firm.name}>
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
      <form class="row" aria-label="New account" onSubmit={(e) => e.preventDefault()}>
        <Field label="Account number" error={form.error("number")}>
          <input value={number} onInput={(e) => setNumber(e.currentTarget.value)} />
        </Field>
        <Field label="Account type" error={form.error("type")}>
          <select value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="principal">principal</option>
            <option value="agent">agent</option>
            <option value="omnibus">omnibus</option>
          </select>
        </Field>
        <Submit label="Open account" run={create} />
        <FormError form={form} />
      </form>
    </Section>
  );
}

function RiskLimits(props: { venue: Venue; firm: ParticipantRecord; changed: () => void }) {
  const { venue: v, firm } = props;
  const current = new Map((firm.risk_limits ?? []).map((l) => [l.name, String(l.value)]));
  const [values, setValues] = useState<Record<string, string>>(Object.fromEntries(riskLimitNames.map((n) => [n, current.get(n) ?? ""])));
  const form = useForm(v, ["value"]);
  const [which, setWhich] = useState("");
  const save = (name: string) =>
    form.run(async () => {
      setWhich(name);
      await v.api.call("PUT", `/admin/participants/${firm.id}/risk-limits/${name}`, { value: values[name]?.trim() ?? "" });
      props.changed();
    }, "Risk limit set");
  return (
    <Section title={"Risk limits of " + firm.name}>
      <form class="stack" aria-label={"Risk limits of " + firm.name} onSubmit={(e) => e.preventDefault()}>
        {riskLimitNames.map((n) => (
          <div class="row" key={n}>
            <Field label={n} error={which === n ? form.error("value") : undefined} hint={current.has(n) ? undefined : "not set"}>
              <input inputMode="decimal" value={values[n] ?? ""} onInput={(e) => setValues({ ...values, [n]: e.currentTarget.value })} />
            </Field>
            <Submit class="" label={"Set " + n} run={save(n)}>
              Set
            </Submit>
          </div>
        ))}
        <FormError form={form} />
      </form>
    </Section>
  );
}

/** Counterparties are the firms this firm trades with; ending a relation refuses their business, so it is asked and reasoned. */
function Counterparties(props: { venue: Venue; firm: ParticipantRecord; firms: ParticipantRecord[]; changed: () => void }) {
  const { venue: v, firm } = props;
  const enabled = new Set((firm.counterparties ?? []).map((c) => c.id));
  const set = (other: ParticipantRecord, on: boolean) => async (reason: string) => {
    await v.api.call("PUT", "/admin/counterparties", { participant_id: firm.id, counterparty_id: other.id, enabled: on, ...(reason ? { reason } : {}) });
    props.changed();
  };
  const others = props.firms.filter((p) => p.id !== firm.id);
  return (
    <Section title={"Counterparties of " + firm.name}>
      <table class="grid" aria-label={"Counterparties of " + firm.name}>
        <thead>
          <tr>
            <th scope="col">Firm</th>
            <th scope="col">Trades with</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {others.length === 0 && <Empty cols={3}>No other firms.</Empty>}
          {others.map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.name}</th>
              <td>{enabled.has(p.id) ? "yes" : "no"}</td>
              <td>
                {enabled.has(p.id) ? (
                  <Confirmed
                    venue={v}
                    class="danger"
                    label={`End trading between ${firm.name} and ${p.name}`}
                    warning="The two firms can no longer trade with each other."
                    run={set(p, false)}
                    done="Counterparty disabled"
                  >
                    Disable
                  </Confirmed>
                ) : (
                  <Action venue={v} label={`Let ${firm.name} trade with ${p.name}`} run={() => set(p, true)("")} done="Counterparty enabled">
                    Enable
                  </Action>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
