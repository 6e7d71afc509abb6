// The live feed: one Socket.IO connection (the official client, default
// transports: long-polling first, then the WebSocket upgrade) carrying a
// namespace socket per kind of record. Each socket remembers the last
// event sequence number it saw and resumes after it on a reconnect
// (auth.last_seq), so nothing is lost across a network blip; a socket
// that never saw an event, or a resync_required from the venue, asks the
// owner to reload that namespace by REST instead.
import { Manager, type Socket } from "socket.io-client";
import type { Meta } from "./types";

export type StreamStatus = "connecting" | "live" | "reconnecting" | "offline";

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

  constructor(
    private readonly token: () => string,
    private readonly h: StreamHandlers,
    origin: string = location.origin,
  ) {
    this.manager = new Manager(origin, { reconnectionDelay: 500, reconnectionDelayMax: 5000, autoConnect: true });
    this.manager.on("reconnect_attempt", () => this.h.status("reconnecting"));
    this.manager.on("error", () => this.h.status("reconnecting"));
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
    for (const s of this.subs.values()) s.socket.disconnect();
    this.subs.clear();
    this.manager.engine?.close();
    this.h.status("offline");
  }

  private report(): void {
    if (this.closed) return;
    const all = [...this.subs.values()];
    if (all.length > 0 && all.every((s) => s.subscribed)) this.h.status("live");
    else this.h.status(all.some((s) => s.lastSeq !== null) ? "reconnecting" : "connecting");
  }
}
