import { describe, expect, it } from "vitest";
import { silence, statusOf } from "../src/client/stream";

describe("the stream badge", () => {
  const beat = { pingInterval: 25_000, pingTimeout: 20_000 };
  const allowed = silence(beat);
  const subscribed = [
    { subscribed: true, resumable: true },
    { subscribed: true, resumable: false },
  ];

  it("allows a ping interval and a grace shorter than the client's own timeout", () => {
    expect(allowed).toBe(30_000);
    expect(silence({ pingInterval: 1_000, pingTimeout: 2_000 })).toBe(3_000);
  });

  it("is live only while the connection brings something", () => {
    expect(statusOf(subscribed, 0, allowed)).toBe("live");
    expect(statusOf(subscribed, allowed, allowed)).toBe("live");
    expect(statusOf(subscribed, allowed + 1, allowed)).toBe("stale");
  });

  it("is not live while a namespace is not subscribed, whatever arrives", () => {
    expect(statusOf([{ subscribed: true, resumable: true }, { subscribed: false, resumable: true }], 0, allowed)).toBe("reconnecting");
    expect(statusOf([{ subscribed: false, resumable: false }], 0, allowed)).toBe("connecting");
    expect(statusOf([], 0, allowed)).toBe("connecting");
  });
});
