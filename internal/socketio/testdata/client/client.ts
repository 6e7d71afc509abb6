// The official Socket.IO client as a venue's client uses it: one socket per
// namespace listed in NAMESPACES, authenticated with TOKEN (and LAST_SEQ
// when set), over TRANSPORTS ("websocket", "polling", or "default"). Every
// event, connect and connect_error is printed as one JSON line for the Go
// test to read. With STALL_FILE set the client plays a slow consumer: after
// its first event it stops reading (its event loop blocked) until that file
// exists. DEPTH, when set, is auth.depth (the levels of instrument.depth).
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

const sockets: Socket[] = namespaces.map((ns) => {
  // Each (re)connect resumes after the last event received, as a client
  // that must not miss one does.
  let last: number | undefined = lastSeq === undefined ? undefined : Number(lastSeq);
  const auth = (cb: (data: object) => void): void =>
    cb({
      token,
      ...(last === undefined ? {} : { last_seq: last }),
      ...(depth === undefined ? {} : { depth: Number(depth) }),
    });
  const opts = transports === "default"
    ? { auth, reconnection: true, reconnectionDelay: 200, forceNew: false }
    : { auth, transports: transports.split(","), reconnection: true, reconnectionDelay: 200, forceNew: false };
  const s = io(url + ns, opts);
  s.on("connect", () => print({ ns, event: "connect", transport: s.io.engine.transport.name }));
  s.io.engine.on("upgrade", (t: { name: string }) => print({ ns, event: "upgrade", transport: t.name }));
  s.on("connect_error", (err: Error & { data?: unknown }) =>
    print({ ns, event: "connect_error", message: err.message, data: err.data ?? null }));
  s.on("disconnect", (reason: string) => print({ ns, event: "disconnect", reason }));
  s.onAny((event: string, ...args: unknown[]) => {
    const meta = args[1] as { seq?: unknown } | undefined;
    if (meta !== undefined && typeof meta.seq === "number") {
      last = meta.seq;
    }
    print({ ns, event, args });
    if (stallFile !== undefined && !stalled && typeof meta?.seq === "number") {
      stalled = true;
      print({ ns, event: "stall" });
      stall(stallFile);
      print({ ns, event: "resume" });
    }
  });
  return s;
});
print({ started: sockets.length });
