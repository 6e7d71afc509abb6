import { useEffect, useRef } from "preact/hooks";
import type { Venue } from "../state/venue";
import { Action } from "../ui/components";

/** ConfirmOrder restates an order before it is sent: a modal dialog, Send or Cancel (Escape cancels). */
export function ConfirmOrder(props: { venue: Venue; lines: [string, string]; send: () => Promise<void>; cancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    // Cancel has the focus: a held Enter does not send what was not read.
    cancel.current?.focus();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-order" onCancel={(e) => {
      e.preventDefault();
      props.cancel();
    }}>
      <h2 id="confirm-title">Send this order?</h2>
      <p id="confirm-order">
        <strong>{props.lines[0]}</strong>
        <br />
        {props.lines[1]}
      </p>
      <div class="actions">
        <Action venue={props.venue} class="primary" label="Send order" run={props.send}>
          Send
        </Action>
        <button type="button" ref={cancel} onClick={props.cancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
