import { useEffect, useState } from "preact/hooks";
import { userStatusBody } from "../client/requests";
import type { Credential, Role, User } from "../client/types";
import type { Venue } from "../state/venue";
import { Action, Empty, Field, Section, Time } from "../ui/components";
import { Confirmed, FormError, Submit, useForm } from "../ui/forms";

const roleNames: [Role, string][] = [
  ["PARTICIPANT_TRADER", "trader"],
  ["PARTICIPANT_VIEWER", "viewer"],
  ["PARTICIPANT_ADMIN", "admin"],
];

/**
 * Users is a firm's users, for its admin or the operator: a new user (its
 * first credential shown once), disabling (asked and reasoned) and
 * enabling, and each user's credentials: a new one shown once, a revoke
 * asked and reasoned.
 */
export function Users(props: { venue: Venue; participantId: string; firm?: string }) {
  const v = props.venue;
  const [users, setUsers] = useState<User[]>([]);
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((n) => n + 1);
  const [secret, setSecret] = useState<(Credential & { email: string }) | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    void v.api
      .get<User[]>(`/users?participant_id=${props.participantId}&limit=1000`)
      .then(setUsers)
      .catch((e: Error) => v.notify("error", e.message));
  }, [props.participantId, version]);
  const issue = async (u: User, reason?: string) => {
    const c = await v.api.call<Credential>("POST", `/admin/users/${u.id}/credentials`, reason ? { reason } : undefined);
    setSecret({ ...c, email: u.email });
    setOpen(u.id);
    reload();
    return c;
  };
  const title = props.firm ? "Users of " + props.firm : "Users";
  return (
    <Section title={title}>
      {secret && <ShownOnce cred={secret} dismiss={() => setSecret(null)} />}
      <table class="grid" aria-label={title}>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {users.length === 0 && <Empty cols={4}>No users.</Empty>}
          {users.map((u) => (
            <UserRow key={u.id} venue={v} user={u} changed={reload} issue={issue} open={open === u.id} toggle={() => setOpen(open === u.id ? null : u.id)} version={version} />
          ))}
        </tbody>
      </table>
      <NewUser venue={v} participantId={props.participantId} created={async (u) => {
        reload();
        await issue(u);
      }} />
    </Section>
  );
}

/** ShownOnce shows a new credential's secret: the venue keeps only its hash, so this is the only time it is seen. */
function ShownOnce(props: { cred: Credential & { email: string }; dismiss: () => void }) {
  return (
    <div class="banner warn once" role="status" aria-label="New credential">
      <p>
        New credential for <strong>{props.cred.email}</strong>. Copy the secret now: it is shown only this once.
      </p>
      <dl class="static">
        <dt>Client ID</dt>
        <dd class="mono" data-testid="new-client-id">{props.cred.client_id}</dd>
        <dt>Client secret</dt>
        <dd class="mono" data-testid="new-client-secret">{props.cred.client_secret}</dd>
      </dl>
      <button type="button" onClick={props.dismiss}>
        I have kept it
      </button>
    </div>
  );
}

function UserRow(props: {
  venue: Venue;
  user: User;
  changed: () => void;
  issue: (u: User, reason?: string) => Promise<Credential>;
  open: boolean;
  toggle: () => void;
  version: number;
}) {
  const { venue: v, user: u } = props;
  const self = u.id === v.user?.id;
  const setStatus = (reason: string) => async () => {
    await v.api.call("PUT", `/admin/users/${u.id}`, reason ? { ...userStatusBody(u.status), reason } : userStatusBody(u.status));
    props.changed();
  };
  return (
    <>
      <tr>
        <th scope="row">{u.email}</th>
        <td>{u.role.replace("PARTICIPANT_", "").toLowerCase()}</td>
        <td>{u.status}</td>
        <td class="actions">
          {!self && u.status === "active" && (
            <Confirmed
              venue={v}
              class="danger"
              label={"Disable " + u.email}
              warning="A disabled user's sessions and credentials are refused from its next request."
              run={(reason) => setStatus(reason)()}
              done="User disabled"
            >
              Disable
            </Confirmed>
          )}
          {!self && u.status !== "active" && (
            <Action venue={v} label={"Enable " + u.email} run={setStatus("")} done="User enabled">
              Enable
            </Action>
          )}
          <button type="button" aria-expanded={props.open} aria-label={"Credentials of " + u.email} onClick={props.toggle}>
            Credentials
          </button>
        </td>
      </tr>
      {props.open && (
        <tr class="detail">
          <td colSpan={4}>
            <Credentials venue={v} user={u} issue={props.issue} version={props.version} />
          </td>
        </tr>
      )}
    </>
  );
}

/** Credentials lists a user's credentials: a new one, reset (a new one, the others revoked), revoke one. */
function Credentials(props: { venue: Venue; user: User; issue: (u: User, reason?: string) => Promise<Credential>; version: number }) {
  const { venue: v, user: u } = props;
  const [creds, setCreds] = useState<Credential[]>([]);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    void v.api
      .get<Credential[]>(`/admin/users/${u.id}/credentials?limit=1000`)
      .then(setCreds)
      .catch((e: Error) => v.notify("error", e.message));
  }, [u.id, version, props.version]);
  const live = creds.filter((c) => !c.revoked_at);
  const revoke = async (c: Credential, reason: string) => {
    await v.api.call("DELETE", `/admin/credentials/${encodeURIComponent(c.client_id)}?reason=${encodeURIComponent(reason)}`);
    setVersion((n) => n + 1);
  };
  return (
    <div class="stack">
      <table class="grid" aria-label={"Credentials of " + u.email}>
        <thead>
          <tr>
            <th scope="col">Client ID</th>
            <th scope="col">Issued</th>
            <th scope="col">Revoked</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {creds.length === 0 && <Empty cols={4}>No credentials.</Empty>}
          {creds.map((c) => (
            <tr key={c.client_id}>
              <td class="mono">{c.client_id}</td>
              <td>
                <Time at={c.createdAt} />
              </td>
              <td>{c.revoked_at ? <Time at={c.revoked_at} /> : "—"}</td>
              <td>
                {!c.revoked_at && (
                  <Confirmed
                    venue={v}
                    class="danger"
                    label={"Revoke credential " + c.client_id}
                    warning="Sessions and FIX logons with this credential are refused from now on."
                    run={(reason) => revoke(c, reason)}
                    done="Credential revoked"
                  >
                    Revoke
                  </Confirmed>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <span class="actions">
        <Confirmed
          venue={v}
          label={"Reset credentials of " + u.email}
          warning={`A new credential is issued and shown once; the user's ${live.length} other credential(s) are revoked.`}
          run={async (reason) => {
            const fresh = await props.issue(u, reason);
            for (const c of live) if (c.client_id !== fresh.client_id) await revoke(c, reason);
            setVersion((n) => n + 1);
          }}
          done="Credentials reset"
        >
          Reset credentials
        </Confirmed>
        <button
          type="button"
          aria-label={"New credential for " + u.email}
          onClick={() => {
            void props.issue(u).then(
              () => setVersion((n) => n + 1),
              (e: Error) => v.notify("error", e.message),
            );
          }}
        >
          New credential
        </button>
      </span>
    </div>
  );
}

function NewUser(props: { venue: Venue; participantId: string; created: (u: User) => Promise<void> }) {
  const v = props.venue;
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("PARTICIPANT_TRADER");
  const form = useForm(v, ["email", "role", "participant_id"]);
  const create = form.run(async () => {
    const u = await v.api.call<User>("POST", "/admin/users", { participant_id: props.participantId, email: email.trim(), role });
    setEmail("");
    await props.created(u);
  }, "User created");
  return (
    <form class="row" aria-label="New user" onSubmit={(e) => e.preventDefault()}>
      <Field label="New user's email" error={form.error("email")}>
        <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <Field label="Role" error={form.error("role")}>
        <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {roleNames.map(([r, n]) => (
            <option key={r} value={r}>
              {n}
            </option>
          ))}
        </select>
      </Field>
      <Submit label="Create user" run={create} />
      <FormError form={form} />
    </form>
  );
}
