import { describe, expect, it, vi } from "vitest";
import { Api, clearSession, loadSession, renewIn, saveSession } from "../src/client/api";

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

describe("a signed-in session", () => {
  it("renews its token before it expires, so the screen never signs its user out", async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    let n = 0;
    let refuse = false;
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      calls.push(`${init.method} ${url} ${(init.headers as Record<string, string>).Authorization ?? ""}`);
      if (refuse) return new Response(JSON.stringify({ error: "missing, invalid, expired or revoked access token" }), { status: 401 });
      return new Response(JSON.stringify({ access_token: "tok" + n++, token_type: "Bearer", expires_in: 900 }), { status: 200 });
    });
    try {
      const api = new Api();
      let ended = 0;
      api.onUnauthorized = () => void ended++;
      await api.signIn("id", "secret");
      expect(api.accessToken).toBe("tok0");
      await vi.advanceTimersByTimeAsync(12 * 60_000); // three minutes left: not yet
      expect(calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(60_000 + 1); // two minutes before the end
      expect(calls[1]).toBe("POST /api/v1/auth/renew Bearer tok0");
      expect(api.accessToken).toBe("tok1");
      await vi.advanceTimersByTimeAsync(45 * 60_000); // three more lifetimes: renewed each time
      expect(api.accessToken).toBe("tok4");
      expect(ended).toBe(0);
      refuse = true; // the credential is revoked: the session ends
      await vi.advanceTimersByTimeAsync(15 * 60_000);
      expect(ended).toBe(1);
    } finally {
      vi.unstubAllGlobals();
      vi.useRealTimers();
    }
  });
  it("renews a quarter of its lifetime before the end, at most two minutes before", () => {
    expect(renewIn(900_000, 900_000, 0)).toBe(780_000);
    expect(renewIn(60_000, 60_000, 0)).toBe(45_000);
    expect(renewIn(60_000, 60_000, 59_000)).toBe(0);
  });
});
