// The venue's news, newest first; each new item is also a notice.
import { query } from "../client/api";
import type { News } from "../client/types";
import type { Host } from "./host";

export class NewsFeed {
  list: News[] = [];

  constructor(private readonly host: Host) {}

  /** load reads the newest news (/news). */
  async load(): Promise<void> {
    this.list = await this.host.api.get<News[]>("/news" + query({ limit: 50 }));
  }

  apply(type: string, n: News): void {
    this.list = [n, ...this.list.filter((x) => x.id !== n.id)];
    if (type === "news.create") this.host.notify("info", "News: " + n.title);
  }

  clear(): void {
    this.list = [];
  }
}
