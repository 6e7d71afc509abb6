// The venue's news, newest first. News that arrives while the trader is
// elsewhere is a notice and counts as unread until the News page is
// opened; news that arrives on the News page is simply shown.
import { query } from "../client/api";
import type { News } from "../client/types";
import type { Host } from "./host";

export class NewsFeed {
  list: News[] = [];
  /** unread counts the news that arrived live while the News page was not shown. */
  unread = 0;
  private reading = false;

  constructor(private readonly host: Host) {}

  /** load reads the newest news (/news). */
  async load(): Promise<void> {
    this.list = await this.host.api.get<News[]>("/news" + query({ limit: 50 }));
  }

  apply(type: string, n: News): void {
    const known = this.list.some((x) => x.id === n.id);
    this.list = [n, ...this.list.filter((x) => x.id !== n.id)];
    if (type !== "news.create" || known || this.reading) return;
    this.unread++;
    this.host.notify("info", "News: " + n.title);
  }

  /** open is the News page shown: everything on it is read. */
  open(): void {
    this.reading = true;
    if (this.unread === 0) return;
    this.unread = 0;
    this.host.changed();
  }

  /** close is the News page left. */
  close(): void {
    this.reading = false;
  }

  clear(): void {
    this.list = [];
    this.unread = 0;
  }
}
