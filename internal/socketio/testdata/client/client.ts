// The official Socket.IO client as a venue's client uses it: one socket per
// namespace listed in NAMESPACES, authenticated with TOKEN (and LAST_SEQ
// when set), over TRANSPORTS. Every event, connect and connect_error is
// printed as one JSON line for the Go test to read.
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
const transports = (process.env["TRANSPORTS"] ?? "websocket").split(",");
const lastSeq = process.env["LAST_SEQ"];

function print(line: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(line) + "\n");
}

const sockets: Socket[] = namespaces.map((ns) => {
  const auth: Record<string, unknown> = { token };
  if (lastSeq !== undefined) {
    auth["last_seq"] = Number(lastSeq);
  }
  const s = io(url + ns, { auth, transports, reconnection: true, forceNew: false });
  s.on("connect", () => print({ ns, event: "connect" }));
  s.on("connect_error", (err: Error & { data?: unknown }) =>
    print({ ns, event: "connect_error", message: err.message, data: err.data ?? null }));
  s.on("disconnect", (reason: string) => print({ ns, event: "disconnect", reason }));
  s.onAny((event: string, ...args: unknown[]) => print({ ns, event, args }));
  return s;
});
print({ started: sockets.length });
