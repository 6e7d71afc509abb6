import { describe, expect, it } from "vitest";
import { clearSession, loadSession, saveSession } from "../src/client/api";

class Mem {
  m = new Map<string, string>();
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
  removeItem(k: string) {
    this.m.delete(k);
  }
}

describe("the session across a reload", () => {
  it("keeps the token until it expires", () => {
    const s = new Mem();
    saveSession(s, "tok", 3600, 1_000_000);
    expect(loadSession(s, 1_000_000 + 3599_000)).toBe("tok");
    expect(loadSession(s, 1_000_000 + 3600_000)).toBeNull();
    expect(s.m.size).toBe(0); // an expired token is dropped
  });
  it("forgets it on sign-out and ignores what it cannot read", () => {
    const s = new Mem();
    saveSession(s, "tok", 3600, 0);
    clearSession(s);
    expect(loadSession(s, 0)).toBeNull();
    s.setItem("bondvenue.session", "{not json");
    expect(loadSession(s, 0)).toBeNull();
  });
});
