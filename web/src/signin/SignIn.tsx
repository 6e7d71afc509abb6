import { useState } from "preact/hooks";
import type { Venue } from "../state/venue";
import { Field } from "../ui/components";

export function SignIn(props: { venue: Venue }) {
  const v = props.venue;
  const [clientId, setClientId] = useState("");
  const [secret, setSecret] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await v.signIn(clientId.trim(), secret.trim());
      // A deep link opened before signing in is kept.
      if (!location.hash || location.hash === "#" || location.hash === "#/") location.hash = "#/market";
    } catch (err) {
      v.signOut();
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">
          <span class="logo" aria-hidden="true" /> bondvenue
        </h1>
        <p class="muted">Sign in with an API credential of your firm.</p>
        {v.expired && (
          <p class="banner warn" role="alert">
            Your session has expired. Sign in again to continue.
          </p>
        )}
        <Field label="Client ID">
          <input name="client_id" autoComplete="username" required value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} autoFocus />
        </Field>
        <Field label="Client secret">
          <input name="client_secret" type="password" autoComplete="current-password" required value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
        </Field>
        {error && (
          <p class="banner error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <p class="muted small">
          The demo's credentials are in <code>demo-credentials.json</code> in the venue's data directory (its <code>--data-dir</code>). The access token is kept in this tab only, until you sign out or close it.
        </p>
      </form>
    </main>
  );
}
