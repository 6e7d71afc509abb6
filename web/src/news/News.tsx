import { useEffect } from "preact/hooks";
import * as f from "../model/format";
import { zonedTime } from "../model/zoned";
import type { Venue } from "../state/venue";
import { Section, useVenue } from "../ui/components";

/** NewsView is the venue's news, newest first, each dated; while it is shown, news is read as it arrives. */
export function NewsView(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  useEffect(() => {
    v.news.open();
    return () => v.news.close();
  }, [v]);
  return (
    <Section title="News">
      {v.news.list.length === 0 && <p class="muted">No news.</p>}
      <ol class="news">
        {v.news.list.map((n) => (
          <li key={n.id}>
            <article aria-labelledby={"n-" + n.id}>
              <h3 id={"n-" + n.id}>{n.title}</h3>
              <p class="muted small">
                {n.source} ·{" "}
                <time class="published" dateTime={n.published_at} title={f.utcTitle(n.published_at)}>
                  {zonedTime(n.published_at)}
                </time>
              </p>
              <p>{n.body}</p>
            </article>
          </li>
        ))}
      </ol>
    </Section>
  );
}
