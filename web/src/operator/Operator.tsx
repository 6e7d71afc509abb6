// The operator's console: every duty of the venue operator, one view per
// hash route (#/operator/markets, #/operator/participants/<id>, …).
import type { Venue } from "../state/venue";
import { useVenue } from "../ui/components";
import { Audit } from "./Audit";
import { Markets } from "./Markets";
import { Participants } from "./Participants";
import { Records } from "./Records";
import { Reference } from "./Reference";
import { Deferrals, Settlement } from "./Settlement";

/** operatorViews are the console's views: route and the name on its tab. */
export const operatorViews: [string, string][] = [
  ["markets", "Markets"],
  ["participants", "Participants"],
  ["settlement", "Settlement"],
  ["transparency", "Deferrals"],
  ["audit", "Audit trail"],
  ["records", "Records and replay"],
  ["reference", "News and reference data"],
];

/** Operator is the venue operator's console: its views' tabs and the view the route names. */
export function Operator(props: { venue: Venue; view?: string; id?: string }) {
  const v = useVenue(props.venue);
  const view = operatorViews.some(([id]) => id === props.view) ? props.view! : "markets";
  let body;
  switch (view) {
    case "participants":
      body = <Participants venue={v} selected={props.id} />;
      break;
    case "settlement":
      body = <Settlement venue={v} />;
      break;
    case "transparency":
      body = <Deferrals venue={v} />;
      break;
    case "audit":
      body = <Audit venue={v} entity={props.id} />;
      break;
    case "records":
      body = <Records venue={v} />;
      break;
    case "reference":
      body = <Reference venue={v} />;
      break;
    default:
      body = <Markets venue={v} selected={props.id} />;
  }
  return (
    <div class="console">
      <nav class="subnav" aria-label="Operator">
        {operatorViews.map(([id, label]) => (
          <a key={id} href={"#/operator/" + id} aria-current={id === view ? "page" : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {body}
    </div>
  );
}
