import { useEffect, useState } from "preact/hooks";
import type { KillSwitch as KillSwitchState } from "../client/types";
import type { Venue } from "../state/venue";
import { Action, Section } from "../ui/components";
import { Confirmed } from "../ui/forms";

/**
 * KillSwitch is a firm's kill switch at path (the firm admin's own, or the
 * operator's for any firm): turning it on cancels the firm's business, so
 * it asks for confirmation and a reason; turning it off does not.
 */
export function KillSwitch(props: { venue: Venue; path: string; firm?: string }) {
  const v = props.venue;
  const [kill, setKill] = useState<KillSwitchState | null>(null);
  useEffect(() => {
    void v.api.get<KillSwitchState>(props.path).then(setKill).catch((e: Error) => v.notify("error", e.message));
  }, [props.path]);
  const set = async (enabled: boolean, reason: string) => {
    const k = await v.api.call<KillSwitchState>("PUT", props.path, reason ? { enabled, reason } : { enabled });
    setKill(k);
    v.notify("info", k.enabled ? `Kill switch on: ${k.cancelled} cancelled` : "Kill switch off");
  };
  const whose = props.firm ? `${props.firm}'s` : "the firm's";
  return (
    <Section title={props.firm ? "Kill switch of " + props.firm : "Kill switch"}>
      <p aria-live="polite">
        {kill?.enabled
          ? `On: ${whose} trading is suspended. New offers, quotes, RFQs and accepts are refused until it is turned off.`
          : `Off: ${props.firm ?? "the firm"} trades. Turning it on cancels every open offer, quote and RFQ of the firm at once.`}
      </p>
      {kill?.enabled ? (
        <Action venue={v} label="Turn kill switch off" run={() => set(false, "")} />
      ) : (
        <Confirmed
          venue={v}
          class="danger"
          label="Turn kill switch on"
          warning={`Every open offer, quote and RFQ of ${props.firm ?? "the firm"} is cancelled now, and new ones are refused.`}
          run={(reason) => set(true, reason)}
        />
      )}
    </Section>
  );
}
