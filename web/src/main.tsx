// The bondvenue trading screen: a client of the public REST API and the
// Socket.IO stream, served by the venue binary from embedded assets.
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import "./style.css";
import { Venue } from "./state/venue";
import { beep, shouldBeep } from "./app/sound";
import { useVenue } from "./ui/ui";
import { Admin } from "./admin/Admin";
import { Blotter } from "./blotter/Blotter";
import { Instrument } from "./instrument/Instrument";
import { Lists } from "./lists/Lists";
import { Market } from "./market/Market";
import { NewsView } from "./news/News";
import { Rfq } from "./rfq/Rfq";
import { SignIn } from "./signin/SignIn";

const venue = new Venue();

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return hash;
}

const roleNames: Record<string, string> = {
  VENUE_OPERATOR: "operator",
  PARTICIPANT_ADMIN: "admin",
  PARTICIPANT_TRADER: "trader",
  PARTICIPANT_VIEWER: "viewer",
};

/** useInboxSound beeps when RFQs addressed to the firm arrive, if the trader turned the sound on. */
function useInboxSound(v: typeof venue): void {
  const seen = useRef(v.rfqsArrived);
  useEffect(() => {
    if (shouldBeep(seen.current, v.rfqsArrived, v.pref("sound"))) beep();
    seen.current = v.rfqsArrived;
  });
}

function App() {
  const v = useVenue(venue);
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
    ["news", "News"],
  ];
  if (v.isAdmin) tabs.push(["admin", "Admin"]);
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
    case "news":
      view = <NewsView venue={v} />;
      break;
    case "admin":
      view = v.isAdmin ? <Admin venue={v} /> : <p class="banner">Administration needs an admin credential.</p>;
      break;
    default:
      view = <Market venue={v} />;
  }
  const current = page === "instrument" ? "market" : page;
  const inbox = v.user.participant_id ? v.orders.inbox : 0;
  return (
    <div class="app">
      <header class="top">
        <a class="brand" href="#/market" aria-label="bondvenue home">
          <span class="logo" aria-hidden="true" /> bondvenue
        </a>
        <nav aria-label="Main">
          {tabs.map(([id, label]) => (
            <a key={id} href={"#/" + id} aria-current={current === id ? "page" : undefined} aria-describedby={id === "rfq" && inbox > 0 ? "rfq-inbox" : undefined}>
              {label}
              {id === "rfq" && inbox > 0 && (
                <span class="badge" aria-hidden="true">
                  {inbox}
                </span>
              )}
            </a>
          ))}
          {/* The inbox's count is read out as it changes; the link keeps its name. */}
          <span id="rfq-inbox" class="sr" role="status">
            {inbox > 0 ? `${inbox} ${inbox === 1 ? "request awaits" : "requests await"} your quote` : ""}
          </span>
        </nav>
        <div class="me">
          <span class={"status " + v.status} role="status" aria-label={"Stream " + v.status} title="Live stream">
            {v.status}
          </span>
          {v.canTrade && (
            <label class="inline small" title="A short beep when a request for quote arrives">
              <input type="checkbox" checked={v.pref("sound")} onChange={(e) => v.setPref("sound", e.currentTarget.checked)} /> RFQ sound
            </label>
          )}
          <span class="firm" title={v.user.email}>
            {v.participant?.name ?? "Venue operator"}
          </span>
          <span class="role" title={v.user.email}>
            {roleNames[v.user.role] ?? v.user.role}
          </span>
          <button
            type="button"
            onClick={() => {
              v.signOut();
              location.hash = "";
            }}
          >
            Sign out
          </button>
        </div>
      </header>
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

// A reload keeps the session (the tab's token) and the route (the hash).
void venue.resume();
render(<App />, document.getElementById("app")!);
