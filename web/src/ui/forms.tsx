// What the operator's and the firm admin's forms share: the venue's
// validation errors shown next to the field they name, and the step that
// asks for confirmation and a reason before an action that cancels or
// refuses business.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError } from "../client/api";
import type { Venue } from "../state/venue";
import { Field } from "./components";

/** FieldErrors are the issues of a form, by the field's name in the request body. */
export type FieldErrors = Record<string, string>;

/**
 * splitErrors sorts an error of the venue into the issues of the known
 * fields (a detail on "settlement_lags[0].from" belongs to
 * "settlement_lags") and one sentence for the rest.
 */
export function splitErrors(err: unknown, known: readonly string[]): { fields: FieldErrors; rest: string } {
  const fields: FieldErrors = {};
  const rest: string[] = [];
  const body = err instanceof ApiError && err.body && typeof err.body === "object" ? (err.body as Record<string, unknown>) : null;
  const details = body && Array.isArray(body.details) ? (body.details as unknown[]) : [];
  for (const d of details) {
    if (!d || typeof d !== "object") continue;
    const r = d as Record<string, unknown>;
    const field = typeof r.field === "string" ? r.field : "";
    const issue = typeof r.issue === "string" ? r.issue : "";
    const name = known.find((k) => field === k || field.startsWith(k + "[") || field.startsWith(k + "."));
    if (name) fields[name] = fields[name] ? fields[name] + "; " + issue : field === name ? issue : `${field}: ${issue}`;
    else rest.push(field ? `${field.replace(/_/g, " ")} ${issue}` : issue);
  }
  if (details.length === 0) rest.push((err as Error).message);
  return { fields, rest: rest.join("; ") };
}

/** Form is a form's state: the issues by field and the sentence for the others. */
export interface Form {
  errors: FieldErrors;
  general: string;
  /** error is the issue of one field, if any. */
  error(field: string): string | undefined;
  /** run wraps an action: it clears the issues, runs fn, and on failure shows the venue's issues by field. */
  run(fn: () => Promise<unknown>, done?: string): () => Promise<void>;
  /** fail shows issues found before sending (the screen's own checks). */
  fail(errors: FieldErrors): void;
}

/** useForm keeps a form's issues; known are the request body's fields the form shows. */
export function useForm(venue: Venue, known: readonly string[]): Form {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [general, setGeneral] = useState("");
  return {
    errors,
    general,
    error: (f) => errors[f],
    run: (fn, done) => async () => {
      setErrors({});
      setGeneral("");
      try {
        await fn();
        if (done) venue.notify("info", done);
      } catch (e) {
        const { fields, rest } = splitErrors(e, known);
        setErrors(fields);
        setGeneral(rest);
      }
    },
    fail: (e) => {
      setErrors(e);
      setGeneral("");
    },
  };
}

/** FormError is a form's error that names no field it shows. */
export function FormError(props: { form: Form }) {
  return props.form.general ? (
    <p class="banner error" role="alert">
      {props.form.general}
    </p>
  ) : null;
}

/** Submit is a form's button: disabled while its action runs. */
export function Submit(props: { run: () => Promise<void>; label: string; children?: ComponentChildren; class?: string; disabled?: boolean }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="submit"
      class={props.class ?? "primary"}
      aria-label={props.label}
      disabled={props.disabled || busy}
      onClick={async (e) => {
        e.preventDefault();
        if (busy) return;
        setBusy(true);
        try {
          await props.run();
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children ?? props.label}
    </button>
  );
}

/**
 * Confirmed is an action that cancels or refuses business (a halt, a kill
 * switch, disabling a user, revoking a credential): its button opens a
 * step that asks for the reason the audit trail records, and runs only
 * on "Confirm"; "Keep" closes it.
 */
export function Confirmed(props: {
  venue: Venue;
  /** label names the action, e.g. "Halt DBR 2.30 15/02/2033 on bondvenue Continuous". */
  label: string;
  children?: ComponentChildren;
  /** warning says what the action does to business. */
  warning: string;
  run: (reason: string) => Promise<unknown>;
  done?: string;
  class?: string;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const form = useForm(props.venue, ["reason"]);
  if (!open)
    return (
      <button type="button" class={props.class} aria-label={props.label} onClick={() => setOpen(true)}>
        {props.children ?? props.label}
      </button>
    );
  const confirm = form.run(async () => {
    if (!reason.trim()) {
      form.fail({ reason: "Give the reason: the audit trail records it" });
      return;
    }
    await props.run(reason.trim());
    setOpen(false);
    setReason("");
    if (props.done) props.venue.notify("info", props.done);
  });
  return (
    <form class="confirm-step" aria-label={"Confirm: " + props.label} onSubmit={(e) => e.preventDefault()}>
      <p class="warn">{props.warning}</p>
      <Field label={"Reason: " + props.label} error={form.error("reason")}>
        <input value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </Field>
      <FormError form={form} />
      <span class="actions">
        <Submit class="danger" label={"Confirm: " + props.label} run={confirm}>
          Confirm
        </Submit>
        <button type="button" aria-label={"Keep: " + props.label} onClick={() => setOpen(false)}>
          Keep
        </button>
      </span>
    </form>
  );
}

/**
 * leiIssue is what is wrong with an LEI (ISO 17442: 18 letters or digits
 * and two check digits, ISO 7064 MOD 97-10 over the whole), or null.
 */
export function leiIssue(lei: string): string | null {
  const s = lei.trim().toUpperCase();
  if (s.length !== 20) return "must be 20 characters (ISO 17442)";
  if (!/^[0-9A-Z]{18}[0-9]{2}$/.test(s)) return "must be 18 letters or digits and 2 check digits";
  let rem = 0;
  for (const c of s) {
    const d = c >= "A" ? String(c.charCodeAt(0) - 55) : c;
    for (const digit of d) rem = (rem * 10 + Number(digit)) % 97;
  }
  return rem === 1 ? null : "has wrong check digits (ISO 17442)";
}
