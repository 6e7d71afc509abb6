import type { Venue } from "../state/venue";

const roleNames: Record<string, string> = {
  VENUE_OPERATOR: "operator",
  PARTICIPANT_ADMIN: "admin",
  PARTICIPANT_TRADER: "trader",
  PARTICIPANT_VIEWER: "viewer",
};

/** TopBar is the frame's header: the tabs (the RFQ tab counts the requests awaiting the firm's quote, the Lists tab the lists awaiting its answer), the stream's status, the RFQ sound, who is signed in, sign-out. */
export function TopBar(props: { venue: Venue; tabs: [string, string][]; current: string }) {
  const { venue: v, tabs, current } = props;
  if (!v.user) return null;
  const inbox = v.user.participant_id ? v.orders.inbox : 0;
  const lists = v.user.participant_id ? v.orders.listInbox : 0;
  const unread = current === "news" ? 0 : v.news.unread;
  return (
    <header class="top">
      <a class="brand" href="#/market" aria-label="bondvenue home">
        <span class="logo" aria-hidden="true" /> bondvenue
      </a>
      <nav aria-label="Main">
        {tabs.map(([id, label]) => (
          <a
            key={id}
            href={"#/" + id}
            aria-current={current === id ? "page" : undefined}
            aria-describedby={id === "rfq" && inbox > 0 ? "rfq-inbox" : id === "lists" && lists > 0 ? "lists-inbox" : id === "news" && unread > 0 ? "news-unread" : undefined}
          >
            {label}
            {id === "rfq" && inbox > 0 && (
              <span class="badge" aria-hidden="true">
                {inbox}
              </span>
            )}
            {id === "lists" && lists > 0 && (
              <span class="badge" aria-hidden="true">
                {lists}
              </span>
            )}
            {id === "news" && unread > 0 && (
              <span class="news-unread" aria-hidden="true">
                {unread}
              </span>
            )}
          </a>
        ))}
        {/* The inbox's count is read out as it changes; the link keeps its name. */}
        <span id="rfq-inbox" class="sr" role="status">
          {inbox > 0 ? `${inbox} ${inbox === 1 ? "request awaits" : "requests await"} your quote` : ""}
        </span>
        <span id="lists-inbox" class="sr" role="status">
          {lists > 0 ? `${lists} ${lists === 1 ? "list awaits" : "lists await"} your answer` : ""}
        </span>
        <span id="news-unread" class="sr" role="status">
          {unread > 0 ? `${unread} unread news` : ""}
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
  );
}
