// The official Socket.IO client as a venue's client uses it: one socket per
// namespace listed in NAMESPACES, authenticated with TOKEN (and LAST_SEQ
// when set), over TRANSPORTS ("websocket", "polling", or "default"). Every
// event, connect and connect_error is printed as one JSON line for the Go
// test to read. With STALL_FILE set the client plays a slow consumer: after
// its first event it stops reading (its event loop blocked) until that file
// exists. With CLIENTS=N it plays N clients at once, each on a connection
// of its own (lines carry "client": its index), and each reports its
// transport one second after it connected ("transport_at_1s"), and how long
// after the connect the upgrade came ("after_ms"); STAGGER_MS spaces their
// starts, as clients of a venue do not all connect in the same millisecond.
// DEPTH, when set, is auth.depth (the levels of instrument.depth).
import { existsSync } from "node:fs";
import { io, type Socket } from "socket.io-client";

declare const process: {
  env: Record<string, string | undefined>;
  stdout: { write(s: string): boolean };
  exit(code: number): never;
};

function required(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === "") {
    process.stdout.write(JSON.stringify({ fatal: `${name} is not set` }) + "\n");
    process.exit(2);
  }
  return v;
}

const url = required("URL");
const token = required("TOKEN");
const namespaces = required("NAMESPACES").split(",");
// "default" leaves the client's own choice: long-polling, then the upgrade.
const transports = process.env["TRANSPORTS"] ?? "websocket";
const lastSeq = process.env["LAST_SEQ"];
const depth = process.env["DEPTH"];
const stallFile = process.env["STALL_FILE"];
const clients = Number(process.env["CLIENTS"] ?? "1");
const staggerMs = Number(process.env["STAGGER_MS"] ?? "0");
let stalled = false;

// stall blocks the event loop (nothing is read from the network) until
// STALL_FILE exists, sleeping 10 ms between looks.
function stall(file: string): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(file)) {
    Atomics.wait(cell, 0, 0, 10);
  }
}

function print(line: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(line) + "\n");
}

// open connects client number client (undefined: the only one) to
// namespace ns.
function open(ns: string, client: number | undefined): Socket {
  // Each (re)connect resumes after the last event received, as a client
  // that must not miss one does.
  let last: number | undefined = lastSeq === undefined ? undefined : Number(lastSeq);
  const auth = (cb: (data: object) => void): void =>
    cb({
      token,
      ...(last === undefined ? {} : { last_seq: last }),
      ...(depth === undefined ? {} : { depth: Number(depth) }),
    });
  // Several clients each have a connection of their own.
  const forceNew = client !== undefined;
  const opts = transports === "default"
    ? { auth, reconnection: true, reconnectionDelay: 200, forceNew }
    : { auth, transports: transports.split(","), reconnection: true, reconnectionDelay: 200, forceNew };
  const s = io(url + ns, opts);
  const say = (line: Record<string, unknown>): void => print(client === undefined ? { ns, ...line } : { ns, client, ...line });
  let connectedAt = 0;
  s.on("connect", () => {
    connectedAt = Date.now();
    const engine = s.io.engine;
    say({ event: "connect", transport: engine.transport.name });
    if (client !== undefined) {
      setTimeout(() => say({ event: "transport_at_1s", transport: engine.transport.name }), 1000);
    }
  });
  s.io.engine.on("upgrading", (t: { name: string }) =>
    say({ event: "upgrading", transport: t.name, after_ms: connectedAt === 0 ? 0 : Date.now() - connectedAt }));
  // An upgrade before the namespace's connect counts as at once.
  s.io.engine.on("upgrade", (t: { name: string }) =>
    say({ event: "upgrade", transport: t.name, after_ms: connectedAt === 0 ? 0 : Date.now() - connectedAt }));
  s.on("connect_error", (err: Error & { data?: unknown }) =>
    say({ event: "connect_error", message: err.message, data: err.data ?? null }));
  s.on("disconnect", (reason: string) => say({ event: "disconnect", reason }));
  s.onAny((event: string, ...args: unknown[]) => {
    const meta = args[1] as { seq?: unknown } | undefined;
    if (meta !== undefined && typeof meta.seq === "number") {
      last = meta.seq;
    }
    say({ event, args });
    if (stallFile !== undefined && !stalled && typeof meta?.seq === "number") {
      stalled = true;
      say({ event: "stall" });
      stall(stallFile);
      say({ event: "resume" });
    }
  });
  return s;
}

const sockets: Socket[] = [];
if (clients > 1) {
  for (let i = 0; i < clients; i++) {
    setTimeout(() => {
      for (const ns of namespaces) {
        sockets.push(open(ns, i));
      }
    }, i * staggerMs);
  }
} else {
  for (const ns of namespaces) {
    sockets.push(open(ns, undefined));
  }
}
print({ started: clients > 1 ? clients * namespaces.length : sockets.length });
