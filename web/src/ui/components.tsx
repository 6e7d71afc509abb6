// Small pieces every view uses: the store hook, numeric and time cells,
// labelled fields, and an action button that shows its error in words.
import { type ComponentChildren, type VNode, cloneElement } from "preact";
import { useEffect, useId, useReducer, useRef, useState } from "preact/hooks";
import { arrowStep } from "./keys";
import * as f from "../model/format";
import { moved } from "../model/levels";
import type { Venue } from "../state/venue";

/**
 * Flash shows its children with a short highlight when value moves up or
 * down (flash-up, flash-down; none under prefers-reduced-motion, see
 * style.css). Each move alternates the animation's name, which starts
 * the highlight again without re-creating the children (a focused price
 * keeps its focus).
 */
export function Flash(props: { value: string | number | null | undefined; children: ComponentChildren }) {
  const last = useRef<{ value: string | number | null | undefined; dir: "up" | "down" | ""; n: number }>({ value: props.value, dir: "", n: 0 });
  if (String(props.value) !== String(last.current.value)) {
    const dir = moved(last.current.value, props.value);
    last.current = { value: props.value, dir, n: last.current.n + (dir ? 1 : 0) };
  }
  const { dir, n } = last.current;
  return (
    <span class={dir ? `flash-${dir} flash-${n % 2 ? "a" : "b"}` : undefined}>
      {props.children}
    </span>
  );
}

/** Own marks a level that is the firm's own order: a marker, and "own" for a screen reader. */
export function Own() {
  return (
    <span class="own" title="Your firm's order">
      <span aria-hidden="true">◆</span>
      <span class="sr">own</span>
    </span>
  );
}

/** useVenue re-renders the component whenever the venue's state changes. */
export function useVenue(v: Venue): Venue {
  const [, bump] = useReducer((n: number, _: void) => n + 1, 0);
  useEffect(() => v.subscribe(() => bump()), [v]);
  return v;
}

export function Num(props: { children: ComponentChildren; class?: string; label?: string }) {
  return (
    <td class={"num " + (props.class ?? "")} aria-label={props.label}>
      {props.children}
    </td>
  );
}

/** Time shows an instant in the trader's zone, named; full shows its date even today (records read later: blotters, news). */
export function Time(props: { at: string | null | undefined; now?: Date; full?: boolean }) {
  return (
    <time dateTime={props.at ?? ""} title={f.utcTitle(props.at)}>
      {props.full ? f.stamp(props.at) : f.time(props.at, props.now)}
    </time>
  );
}

/** Field labels one control (its only child) by id, with its error or hint described by id too. */
export function Field(props: { label: string; error?: string | null; hint?: string; children: VNode }) {
  const id = useId();
  const note = props.error || props.hint ? id + "-note" : undefined;
  return (
    <div class={"field" + (props.error ? " invalid" : "")}>
      <label class="label" for={id}>
        {props.label}
      </label>
      {cloneElement(props.children, { id, "aria-describedby": note, "aria-invalid": props.error ? true : undefined })}
      {props.error ? (
        <span class="error" id={note} role="alert">
          {props.error}
        </span>
      ) : props.hint ? (
        <span class="hint" id={note}>
          {props.hint}
        </span>
      ) : null}
    </div>
  );
}

/** Action is a button running an async action: disabled while it runs, errors reported to the venue's notices. */
export function Action(props: {
  venue: Venue;
  run: () => Promise<unknown>;
  label: string;
  children?: ComponentChildren;
  class?: string;
  disabled?: boolean;
  done?: string;
  type?: "button" | "submit";
}) {
  const [busy, setBusy] = useState(false);
  const click = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    try {
      await props.run();
      if (props.done) props.venue.notify("info", props.done);
    } catch (err) {
      props.venue.notify("error", (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type={props.type ?? "button"} class={props.class} aria-label={props.label} disabled={props.disabled || busy} onClick={click}>
      {props.children ?? props.label}
    </button>
  );
}

export function Empty(props: { cols: number; children: ComponentChildren }) {
  return (
    <tr class="empty">
      <td colSpan={props.cols}>{props.children}</td>
    </tr>
  );
}

export function Section(props: { title: string; children: ComponentChildren; class?: string; actions?: ComponentChildren }) {
  const id = "h-" + props.title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return (
    <section class={"panel " + (props.class ?? "")} aria-labelledby={id}>
      <header>
        <h2 id={id}>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** SideRadios is the Buy/Sell choice: a radio group the arrow keys move through, one tab stop. */
export function SideRadios(props: { label: string; value: "bid" | "ask"; onChange: (v: "bid" | "ask") => void; buy: string; sell: string }) {
  const group = useRef<HTMLDivElement>(null);
  const options = [
    ["bid", props.buy],
    ["ask", props.sell],
  ] as const;
  const key = (e: KeyboardEvent) => {
    const i = options.findIndex(([v]) => v === props.value);
    const next = arrowStep(e.key, i, options.length);
    if (next === null) return;
    e.preventDefault();
    props.onChange(options[next]![0]);
    group.current?.querySelectorAll<HTMLButtonElement>("[role=radio]")[next]?.focus();
  };
  return (
    <div class="segmented sides" role="radiogroup" aria-label={props.label} ref={group} onKeyDown={key}>
      {options.map(([v, label]) => (
        <button
          key={v}
          type="button"
          role="radio"
          aria-checked={props.value === v}
          tabIndex={props.value === v ? 0 : -1}
          class={v}
          onClick={() => props.onChange(v)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** DealerPicker is a checkbox per counterparty of the firm, for a request sent to chosen dealers. */
export function DealerPicker(props: { venue: Venue; picked: Set<string>; onChange: (next: Set<string>) => void }) {
  const cps = props.venue.participant?.counterparties ?? [];
  return (
    <fieldset class="dealers">
      <legend>Dealers</legend>
      {cps.length === 0 && <p class="muted">Your firm has no enabled counterparties.</p>}
      {cps.map((c) => (
        <label key={c.id} class="inline">
          <input
            type="checkbox"
            checked={props.picked.has(c.id)}
            onChange={(e) => {
              const next = new Set(props.picked);
              if (e.currentTarget.checked) next.add(c.id);
              else next.delete(c.id);
              props.onChange(next);
            }}
          />{" "}
          {c.name}
        </label>
      ))}
    </fieldset>
  );
}
