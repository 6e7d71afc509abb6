import { useEffect, useState } from "preact/hooks";
import { query } from "../client/api";
import type { AuditEntry, User } from "../client/types";
import type { Venue } from "../state/venue";
import { Empty, Field, Section, Time } from "../ui/components";
import { FormError, Submit, useForm } from "../ui/forms";

/** auditFilter is what the audit view asks the venue for; the user is matched on the page read. */
export interface AuditFilter {
  entity: string;
  user: string;
  from: string;
  to: string;
}

/** auditQuery is the audit log's query for f: the time bounds as UTC instants of the local times given. */
export function auditQuery(f: AuditFilter, limit: number, after = 0): string {
  const iso = (t: string) => (t ? new Date(t).toISOString() : undefined);
  return query({ entity: f.entity.trim(), from: iso(f.from), to: iso(f.to), limit, after: after || undefined });
}

/** pageSize is the audit log's largest page; the view keeps the newest pages' entries up to keep. */
const pageSize = 1000;
const keep = 2000;

/** Audit is the audit trail: who changed what and why, each entry's state before and after, filtered by entity, user and time. */
export function Audit(props: { venue: Venue; entity?: string }) {
  const v = props.venue;
  const [f, setF] = useState<AuditFilter>({ entity: props.entity ?? "", user: "", from: "", to: "" });
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [users, setUsers] = useState<Map<string, string>>(new Map());
  const form = useForm(v, ["entity", "from", "to", "after"]);
  const load = form.run(async () => {
    // The trail is listed oldest first: read it page by page to its end, newest shown first.
    let all: AuditEntry[] = [];
    for (let after = 0; ; ) {
      const page = await v.api.get<AuditEntry[]>("/admin/audit-log" + auditQuery(f, pageSize, after));
      all = all.concat(page).slice(-keep);
      if (page.length < pageSize) break;
      after = page[page.length - 1]!.seq;
    }
    setEntries(all.reverse());
  });
  useEffect(() => {
    void load();
    void v.api
      .get<User[]>("/users?limit=1000")
      .then((us) => setUsers(new Map(us.map((u) => [u.id, u.email]))))
      .catch(() => {});
  }, []);
  const who = (id: string) => users.get(id) ?? id;
  const shown = f.user.trim() ? entries.filter((e) => who(e.user_id).toLowerCase().includes(f.user.trim().toLowerCase())) : entries;
  const set = (k: keyof AuditFilter) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <Section title="Audit trail">
      <form class="row" aria-label="Audit filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Entity" error={form.error("entity")} hint="a type (halt) or type:id">
          <input value={f.entity} onInput={set("entity")} />
        </Field>
        <Field label="User" hint="email contains">
          <input value={f.user} onInput={set("user")} />
        </Field>
        <Field label="From" error={form.error("from")}>
          <input type="datetime-local" value={f.from} onInput={set("from")} />
        </Field>
        <Field label="To" error={form.error("to")}>
          <input type="datetime-local" value={f.to} onInput={set("to")} />
        </Field>
        <Submit label="Show entries" run={load} />
        <FormError form={form} />
      </form>
      <table class="grid audit" aria-label="Audit entries">
        <thead>
          <tr>
            <th scope="col" class="num">Seq</th>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Entity</th>
            <th scope="col">Reason</th>
            <th scope="col">Before → after</th>
          </tr>
        </thead>
        <tbody>
          {shown.length === 0 && <Empty cols={7}>No entries.</Empty>}
          {shown.map((e) => (
            <tr key={e.seq}>
              <td class="num">{e.seq}</td>
              <td>
                <Time at={e.at} />
              </td>
              <td>
                {who(e.user_id)} <span class="muted">({e.role.toLowerCase()}, {e.channel})</span>
              </td>
              <td>{e.action}</td>
              <td class="mono wrap">
                {e.entity_type}:{e.entity_id}
              </td>
              <td class="wrap">{e.reason}</td>
              <td class="wrap">
                <details>
                  <summary>{changes(e.before, e.after).join(", ") || "details"}</summary>
                  <div class="diff">
                    <pre aria-label="Before">{JSON.stringify(e.before, null, 1)}</pre>
                    <pre aria-label="After">{JSON.stringify(e.after, null, 1)}</pre>
                  </div>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** changes names the top-level fields an entry changed ("Halted: false → true"); all of after's for a creation. */
export function changes(before: unknown, after: unknown): string[] {
  const b = before && typeof before === "object" ? (before as Record<string, unknown>) : null;
  const a = after && typeof after === "object" ? (after as Record<string, unknown>) : null;
  if (!a) return [];
  if (!b) return ["created"];
  const out: string[] = [];
  for (const k of Object.keys(a)) {
    const x = JSON.stringify(b[k]);
    const y = JSON.stringify(a[k]);
    if (x !== y && !/^updated_?at$/i.test(k)) out.push(`${k}: ${x ?? "—"} → ${y}`);
  }
  return out;
}
