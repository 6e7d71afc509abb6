// The live feed: one Socket.IO connection (the official client, default
// transports: long-polling first, then the WebSocket upgrade) carrying a
// namespace socket per kind of record. Each socket remembers the last
// event sequence number it saw and resumes after it on a reconnect
// (auth.last_seq), so nothing is lost across a network blip; a socket
// that never saw an event, or a resync_required from the venue, asks the
// owner to reload that namespace by REST instead.
//
// "live" means the connection delivers, not merely that it is open: the
// venue pings every pingInterval (its handshake says how often), so a
// connection that has brought nothing — no ping, no event — for longer
// than that and a grace is "stale", until something arrives or the
// client gives up on it and reconnects.
import { Manager, type Socket } from "socket.io-client";
import type { Meta } from "./types";

export type StreamStatus = "connecting" | "live" | "stale" | "reconnecting" | "offline";

/** Heartbeat is the venue's Engine.IO ping timing, from its handshake (ms). */
export interface Heartbeat {
  pingInterval: number;
  pingTimeout: number;
}

/** The venue's defaults, until a handshake says otherwise. */
const defaultHeartbeat: Heartbeat = { pingInterval: 25_000, pingTimeout: 20_000 };

/**
 * silence is how long a connection may bring nothing before it is stale:
 * a ping is due every pingInterval; the grace covers a late one, and stays
 * shorter than the client's own wait before it reconnects.
 */
export function silence(h: Heartbeat): number {
  return h.pingInterval + Math.min(h.pingTimeout, 5_000);
}

/**
 * statusOf says what the badge shows: live only when every namespace is
 * subscribed and the connection brought something (a ping, an event)
 * within the allowed silence.
 */
export function statusOf(subs: { subscribed: boolean; resumable: boolean }[], quietFor: number, allowed: number): StreamStatus {
  if (subs.length > 0 && subs.every((s) => s.subscribed)) return quietFor <= allowed ? "live" : "stale";
  return subs.some((s) => s.resumable) ? "reconnecting" : "connecting";
}

export interface StreamHandlers {
  /** event delivers one record event of a namespace. */
  event(nsp: string, type: string, record: unknown, meta: Meta): void;
  /** reload asks for the namespace's state by REST (first connect, unknown gap, resync_required). */
  reload(nsp: string): void;
  /** expired reports a refused or ended token. */
  expired(): void;
  status(s: StreamStatus): void;
}

interface Sub {
  socket: Socket;
  lastSeq: number | null;
  subscribed: boolean;
  extra: Record<string, unknown>;
}

export class Stream {
  private readonly manager: Manager;
  private readonly subs = new Map<string, Sub>();
  private closed = false;
  private heartbeat: Heartbeat = defaultHeartbeat;
  private heardAt = Date.now();
  private watched: object | null = null; // the engine whose packets are counted
  private shown: StreamStatus | null = null;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly token: () => string,
    private readonly h: StreamHandlers,
    origin: string = location.origin,
  ) {
    this.manager = new Manager(origin, { reconnectionDelay: 500, reconnectionDelayMax: 5000, autoConnect: true });
    this.watchEngine();
    this.manager.on("reconnect_attempt", () => {
      this.show("reconnecting");
      // The manager opens a new engine right after this event: count its
      // packets from its handshake on.
      queueMicrotask(() => this.watchEngine());
    });
    this.manager.on("open", () => {
      this.watchEngine();
      this.heard();
    });
    this.manager.on("error", () => this.show("reconnecting"));
    // Silence shows without any event: look every second.
    this.timer = setInterval(() => this.report(), 1000);
  }

  /** watchEngine counts every packet of the manager's current engine as a sign of life. */
  private watchEngine(): void {
    const engine = this.manager.engine;
    if (!engine || engine === this.watched) return;
    this.watched = engine;
    engine.on("handshake", (d: Heartbeat) => {
      if (d.pingInterval > 0 && d.pingTimeout > 0) this.heartbeat = { pingInterval: d.pingInterval, pingTimeout: d.pingTimeout };
      this.heard();
    });
    engine.on("heartbeat", () => this.heard());
  }

  private heard(): void {
    this.heardAt = Date.now();
    if (this.shown === "stale") this.report();
  }

  private show(s: StreamStatus): void {
    if (this.closed || s === this.shown) return;
    this.shown = s;
    this.h.status(s);
  }

  /**
   * open subscribes to a namespace; extra goes into auth (interval,
   * instrument_ids, market_id). Opening an open namespace with other
   * filters starts it afresh (live, then reload).
   */
  open(nsp: string, extra: Record<string, unknown> = {}): void {
    const open = this.subs.get(nsp);
    if (open) {
      if (JSON.stringify(open.extra) === JSON.stringify(extra)) return;
      open.extra = extra;
      open.lastSeq = null;
      open.socket.disconnect();
      open.socket.connect();
      return;
    }
    const sub: Sub = { socket: undefined as unknown as Socket, lastSeq: null, subscribed: false, extra };
    sub.socket = this.manager.socket(nsp, {
      auth: (cb: (a: object) => void) =>
        cb({ token: this.token(), ...sub.extra, ...(sub.lastSeq !== null ? { last_seq: sub.lastSeq } : {}) }),
    });
    sub.socket.on("subscription", () => {
      const resumed = sub.lastSeq !== null;
      sub.subscribed = true;
      this.report();
      if (!resumed) this.h.reload(nsp);
    });
    sub.socket.on("resync_required", (m: { last_seq?: number }) => {
      if (typeof m?.last_seq === "number") sub.lastSeq = m.last_seq;
      this.h.reload(nsp);
    });
    sub.socket.on("connect_error", (err: Error & { data?: { statusCode?: number } }) => {
      if (err.data?.statusCode === 401) {
        this.h.expired();
        return;
      }
      // Any other refusal (busy, failing over): the client retries.
      this.report();
    });
    sub.socket.on("disconnect", (reason: string) => {
      sub.subscribed = false;
      if (this.closed) return;
      this.report();
      if (reason === "io server disconnect") {
        // The venue ended this namespace (token expired, or a slow
        // consumer cut off): try again; an expired token answers 401.
        sub.socket.connect();
      }
    });
    sub.socket.onAny((type: string, record: unknown, meta?: Meta) => {
      if (type === "subscription" || type === "resync_required") return;
      if (meta && typeof meta.seq === "number") {
        // Already applied; a batch's price change and depth share their seq.
        if (sub.lastSeq !== null && meta.seq < sub.lastSeq) return;
        sub.lastSeq = meta.seq;
      }
      this.h.event(nsp, type, record, meta ?? { seq: 0, type, occurred_at: "" });
    });
    this.subs.set(nsp, sub);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const s of this.subs.values()) s.socket.disconnect();
    this.subs.clear();
    this.manager.engine?.close();
    this.h.status("offline");
  }

  private report(): void {
    const subs = [...this.subs.values()].map((s) => ({ subscribed: s.subscribed, resumable: s.lastSeq !== null }));
    this.show(statusOf(subs, Date.now() - this.heardAt, silence(this.heartbeat)));
  }
}
