import type { Venue } from "../state/venue";
import { Section, Time, useVenue } from "../ui/components";

export function NewsView(props: { venue: Venue }) {
  const v = useVenue(props.venue);
  return (
    <Section title="News">
      {v.news.list.length === 0 && <p class="muted">No news.</p>}
      <ol class="news">
        {v.news.list.map((n) => (
          <li key={n.id}>
            <article aria-labelledby={"n-" + n.id}>
              <h3 id={"n-" + n.id}>{n.title}</h3>
              <p class="muted small">
                {n.source} · <Time at={n.published_at} full />
              </p>
              <p>{n.body}</p>
            </article>
          </li>
        ))}
      </ol>
    </Section>
  );
}
