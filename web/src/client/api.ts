// The REST client: one bearer token, and errors turned into sentences for
// people. The token is kept in the tab's sessionStorage (never in
// localStorage or a cookie) so that a reload keeps the session; it dies
// with the tab, on sign-out, on expiry or when the venue refuses it.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

export interface TokenAnswer {
  access_token: string;
  expires_in: number;
}

/** describe turns an error answer of the venue into one readable sentence. */
export function describe(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    const err = typeof b.error === "string" ? b.error : typeof b.message === "string" ? b.message : "";
    const details = Array.isArray(b.details) ? (b.details as unknown[]).map(detail).filter(Boolean) : [];
    if (details.length > 0 && (err === "" || err === "Validation Error")) return details.join("; ");
    if (err) return err;
  }
  switch (status) {
    case 401:
      return "Your session has ended; sign in again";
    case 403:
      return "Your role may not do this";
    case 404:
      return "Not found";
    case 429:
      return "Too many requests; try again in a moment";
    case 503:
      return "The venue is busy or failing over; try again in a moment";
    default:
      return `The venue answered ${status}`;
  }
}

function detail(e: unknown): string {
  if (e && typeof e === "object") {
    const r = e as Record<string, unknown>;
    const field = typeof r.field === "string" ? r.field.replace(/_/g, " ") : "";
    const issue = typeof r.issue === "string" ? r.issue : "";
    return field && issue ? `${field} ${issue}` : issue || field;
  }
  return "";
}

/** SessionStore is the part of Storage the session needs (sessionStorage in the browser). */
export interface SessionStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const sessionKey = "bondvenue.session";

/** Session is a kept token: good until (ms), issued for lifetime (ms). */
export interface Session {
  token: string;
  until: number;
  lifetime: number;
}

/** saveSession keeps a token for expiresIn seconds from now (ms). */
export function saveSession(s: SessionStore, token: string, expiresIn: number, now: number): void {
  s.setItem(sessionKey, JSON.stringify({ token, until: now + expiresIn * 1000, lifetime: expiresIn * 1000 }));
}

/** sessionOf is the kept session while its token is valid, else null (and an expired one is dropped). */
export function sessionOf(s: SessionStore, now: number): Session | null {
  try {
    const raw = s.getItem(sessionKey);
    if (!raw) return null;
    const v = JSON.parse(raw) as { token?: unknown; until?: unknown; lifetime?: unknown };
    if (typeof v.token === "string" && typeof v.until === "number" && v.until > now) {
      return { token: v.token, until: v.until, lifetime: typeof v.lifetime === "number" ? v.lifetime : v.until - now };
    }
  } catch {
    /* unreadable: dropped below */
  }
  s.removeItem(sessionKey);
  return null;
}

/** loadSession is the kept token while it is valid, else null (and an expired one is dropped). */
export function loadSession(s: SessionStore, now: number): string | null {
  return sessionOf(s, now)?.token ?? null;
}

/**
 * renewIn is how long (ms) from now to renew a token good until (ms),
 * issued for lifetime (ms): a quarter of its lifetime before it expires,
 * at most two minutes before, so a renewal refused for a moment (the
 * venue failing over) has time to be tried again; at once when that
 * time has passed.
 */
export function renewIn(until: number, lifetime: number, now: number): number {
  return Math.max(0, until - Math.min(120_000, lifetime / 4) - now);
}

/** retryRenewal is how long (ms) to wait before trying a renewal again that the venue did not answer. */
export const retryRenewal = 10_000;

/** clearSession forgets the kept token. */
export function clearSession(s: SessionStore): void {
  s.removeItem(sessionKey);
}

function browserSession(): SessionStore | null {
  try {
    return typeof sessionStorage === "undefined" ? null : sessionStorage;
  } catch {
    return null;
  }
}

export class Api {
  private token = "";
  private until = 0;
  private lifetime = 0;
  private renewal: ReturnType<typeof setTimeout> | undefined;
  /** onUnauthorized is called when the venue refuses the token (expired or revoked). */
  onUnauthorized: () => void = () => {};

  constructor(private readonly base = "/api/v1") {}

  get accessToken(): string {
    return this.token;
  }

  async signIn(clientId: string, clientSecret: string): Promise<TokenAnswer> {
    const res = await fetch(this.base + "/auth/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
    });
    const body = await readBody(res);
    if (!res.ok) {
      throw new ApiError(res.status, res.status === 401 ? "client_id and/or client_secret is wrong" : describe(res.status, body), body);
    }
    const t = body as TokenAnswer;
    this.keep(t);
    return t;
  }

  /** keep takes up a token the venue issued, keeps it for a reload, and schedules its renewal. */
  private keep(t: TokenAnswer): void {
    const now = Date.now();
    this.token = t.access_token;
    this.until = now + t.expires_in * 1000;
    this.lifetime = t.expires_in * 1000;
    const store = browserSession();
    if (store) saveSession(store, t.access_token, t.expires_in, now);
    this.schedule(renewIn(this.until, this.lifetime, now));
  }

  private schedule(delay: number): void {
    clearTimeout(this.renewal);
    this.renewal = setTimeout(() => void this.renew(), delay);
  }

  /**
   * renew exchanges the token for a new one before it expires
   * (POST /auth/renew), so a signed-in screen is never signed out while
   * it is open: the venue's token lifetime stays what it is. A refusal
   * (revoked credential, disabled user) ends the session; no answer is
   * tried again while the token holds.
   */
  private async renew(): Promise<void> {
    const token = this.token;
    if (!token) return;
    let res: Response;
    try {
      res = await fetch(this.base + "/auth/renew", { method: "POST", headers: { Authorization: "Bearer " + token } });
    } catch {
      res = new Response(null, { status: 503 });
    }
    if (this.token !== token) return; // signed out, or in again, meanwhile
    const body = await readBody(res);
    if (res.ok) {
      this.keep(body as TokenAnswer);
    } else if (res.status === 401) {
      this.onUnauthorized();
    } else if (Date.now() + retryRenewal < this.until) {
      this.schedule(retryRenewal);
    }
  }

  /** resume takes up the token kept by this tab before a reload; false when there is none. */
  resume(): boolean {
    const store = browserSession();
    const now = Date.now();
    const s = store ? sessionOf(store, now) : null;
    if (!s) return false;
    this.token = s.token;
    this.until = s.until;
    this.lifetime = s.lifetime;
    this.schedule(renewIn(s.until, s.lifetime, now));
    return true;
  }

  signOut(): void {
    clearTimeout(this.renewal);
    this.token = "";
    const store = browserSession();
    if (store) clearSession(store);
  }

  async call<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { Authorization: "Bearer " + this.token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    let res: Response;
    try {
      res = await fetch(this.base + path, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
    } catch {
      throw new ApiError(0, "The venue cannot be reached; check the connection");
    }
    const answer = await readBody(res);
    if (res.status === 401 && this.token) this.onUnauthorized();
    if (!res.ok) throw new ApiError(res.status, describe(res.status, answer), answer);
    return answer as T;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>("GET", path);
  }

  /** csv reads a path's CSV answer (Accept: text/csv) as text. */
  async csv(path: string): Promise<string> {
    let res: Response;
    try {
      res = await fetch(this.base + path, { headers: { Authorization: "Bearer " + this.token, Accept: "text/csv" } });
    } catch {
      throw new ApiError(0, "The venue cannot be reached; check the connection");
    }
    if (res.status === 401 && this.token) this.onUnauthorized();
    if (!res.ok) {
      const answer = await readBody(res);
      throw new ApiError(res.status, describe(res.status, answer), answer);
    }
    return res.text();
  }

  /** download reads a path's answer in the format accept names (an export) as a file's contents. */
  async download(path: string, accept: string): Promise<Blob> {
    let res: Response;
    try {
      res = await fetch(this.base + path, { headers: { Authorization: "Bearer " + this.token, Accept: accept } });
    } catch {
      throw new ApiError(0, "The venue cannot be reached; check the connection");
    }
    if (res.status === 401 && this.token) this.onUnauthorized();
    if (!res.ok) {
      const answer = await readBody(res);
      throw new ApiError(res.status, describe(res.status, answer), answer);
    }
    return res.blob();
  }
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** query builds a query string from the set values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? "?" + s : "";
}

/** newKey is a fresh Idempotency-Key for one user action (retries reuse it). */
export function newKey(): string {
  return crypto.randomUUID();
}

const uuid = /\s?\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** nameIds replaces the record ids in a venue's message by the names known, and drops the others: people read names. */
export function nameIds(text: string, names: ReadonlyMap<string, string>): string {
  return text.replace(uuid, (m) => {
    const name = names.get(m.trim().toLowerCase()) ?? names.get(m.trim());
    return name ? (m.startsWith(" ") ? " " : "") + name : "";
  });
}
