import { describe, expect, it } from "vitest";
import type { Api } from "../src/client/api";
import type { News } from "../src/client/types";
import type { Host } from "../src/state/host";
import { NewsFeed } from "../src/state/news";

function feed() {
  const notices: string[] = [];
  const host = {
    api: { get: async () => [] } as unknown as Api,
    user: null,
    markets: [],
    isOperator: false,
    now: 0,
    changed: () => {},
    notify: (_kind: string, text: string) => void notices.push(text),
    market: () => undefined,
    instrument: () => undefined,
  } satisfies Host;
  return { news: new NewsFeed(host), notices };
}

const item = (id: string, title: string): News => ({ id, title, body: "", source: "desk", url: null, published_at: "2026-12-08T10:00:00.000Z" });

describe("news alerts", () => {
  it("count news arriving elsewhere as unread, each a notice, until the News page is opened", () => {
    const { news, notices } = feed();
    news.apply("news.create", item("n1", "ECB holds"));
    news.apply("news.create", item("n2", "Auction results"));
    expect([news.unread, notices]).toEqual([2, ["News: ECB holds", "News: Auction results"]]);
    news.open();
    expect(news.unread).toBe(0);
    expect(news.list.map((n) => n.id)).toEqual(["n2", "n1"]);
  });
  it("show news arriving on the News page without a notice or a count", () => {
    const { news, notices } = feed();
    news.open();
    news.apply("news.create", item("n1", "ECB holds"));
    expect([news.unread, notices]).toEqual([0, []]);
    news.close();
    news.apply("news.create", item("n2", "Auction results"));
    expect([news.unread, notices]).toEqual([1, ["News: Auction results"]]);
  });
  it("count neither a correction nor news already known (a stream replay)", () => {
    const { news, notices } = feed();
    news.apply("news.create", item("n1", "ECB holds"));
    news.apply("news.update", item("n1", "ECB holds rates"));
    news.apply("news.create", item("n1", "ECB holds rates"));
    expect([news.unread, notices.length]).toEqual([1, 1]);
  });
  it("forget the count at sign-out", () => {
    const { news } = feed();
    news.apply("news.create", item("n1", "ECB holds"));
    news.clear();
    expect(news.unread).toBe(0);
  });
});
