// The app's frame: sign-in, the hash routes (#/instrument/<id>) and the
// view each shows, under the top bar, with the notices beside.
import { useEffect, useRef, useState } from "preact/hooks";
import { Admin } from "../admin/Admin";
import { Blotter } from "../blotter/Blotter";
import { Instrument } from "../instrument/Instrument";
import { Lists } from "../lists/Lists";
import { Market } from "../market/Market";
import { NewsView } from "../news/News";
import { Positions } from "../positions/Positions";
import { Operator } from "../operator/Operator";
import { Rfq } from "../rfq/Rfq";
import { SignIn } from "../signin/SignIn";
import type { Venue } from "../state/venue";
import { Tape } from "../tape/Tape";
import { useVenue } from "../ui/components";
import { beep, shouldBeep } from "./sound";
import { TopBar } from "./TopBar";

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return hash;
}

/** useInboxSound beeps when RFQs addressed to the firm arrive, if the trader turned the sound on. */
function useInboxSound(v: Venue): void {
  const seen = useRef(v.rfqsArrived);
  useEffect(() => {
    if (shouldBeep(seen.current, v.rfqsArrived, v.pref("sound"))) beep();
    seen.current = v.rfqsArrived;
  });
}

/** App is the screen: the sign-in page, or the signed-in frame with the route's view. */
export function App(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  const hash = useHash();
  useInboxSound(v);
  if (v.resuming) return <p class="muted banner">Resuming your session…</p>;
  if (!v.user) return <SignIn venue={v} />;
  const [path, search = ""] = hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(search);
  const parts = (path || "/market").split("/").filter(Boolean);
  const page = parts[0] ?? "market";
  const tabs: [string, string][] = [
    ["market", "Market"],
    ["blotter", "Blotter"],
    ["rfq", "RFQ"],
    ["lists", "Lists"],
    ["tape", "Tape"],
    ["news", "News"],
  ];
  if (v.positions.active) tabs.splice(2, 0, ["positions", "Positions"]);
  if (v.isAdmin) tabs.push(["admin", "Admin"]);
  if (v.isOperator) tabs.push(["operator", "Operator"]);
  let view;
  switch (page) {
    case "instrument":
      view = <Instrument venue={v} id={parts[1] ?? ""} />;
      break;
    case "blotter":
      view = <Blotter venue={v} />;
      break;
    case "rfq":
      view = <Rfq venue={v} instrumentId={params.get("instrument") ?? undefined} />;
      break;
    case "lists":
      view = <Lists venue={v} />;
      break;
    case "tape":
      view = <Tape venue={v} />;
      break;
    case "news":
      view = <NewsView venue={v} />;
      break;
    case "positions":
      view = <Positions venue={v} />;
      break;
    case "admin":
      view = v.isAdmin ? <Admin venue={v} /> : <p class="banner">Administration needs an admin credential.</p>;
      break;
    case "operator":
      view = v.isOperator ? <Operator venue={v} view={parts[1]} id={parts[2]} /> : <p class="banner">The console needs the operator's credential.</p>;
      break;
    default:
      view = <Market venue={v} />;
  }
  const current = page === "instrument" ? "market" : page;
  return (
    <div class="app">
      <TopBar venue={v} tabs={tabs} current={current} />
      <main>{view}</main>
      <div class="notices" aria-live="polite">
        {v.notices.map((n) => (
          <p key={n.id} class={"notice " + n.kind} role={n.kind === "error" ? "alert" : "status"}>
            <span>{n.text}</span>
            <button type="button" class="dismiss" aria-label="Dismiss" onClick={() => v.dismiss(n.id)}>
              ×
            </button>
          </p>
        ))}
      </div>
    </div>
  );
}
