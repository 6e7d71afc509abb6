// The driver's self-test (npm test): a jspurefix ACCEPTOR in this process,
// on a random local port, and ONE driver process (node dist/client.js)
// driven over its stdin/stdout through logon, a raw NewOrderSingle, an
// ExecutionReport with tags the dictionary does not know, a ResendRequest
// answered the way a FIX engine replays (gap fill, PossDup messages), a
// logout, a logon continuing the sequence numbers, a drop, a rejected logon,
// a refused connection and the end of stdin.
import "reflect-metadata";
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import * as readline from "node:readline";
import { fileURLToPath } from "node:url";
import {
  AsciiSession,
  MsgTag,
  MsgTransport,
  SessionState,
  TcpDuplex,
  type FixDefinitions,
  type IJsFixConfig,
  type ISessionDescription,
  type MsgView,
} from "jspurefix";
import {
  RAW,
  RawAsciiTransmitter,
  StderrLogFactory,
  fieldsOf,
  loadDefinitions,
  sessionConfig,
  storeAt,
  type RawBody,
  type RawField,
} from "./client.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const venue = "BONDVENUE";
const client = "CLIENT1";

// ---------------------------------------------------------------------------
// The acceptor.

interface SentApp {
  type: string;
  fields: RawField[];
  sendingTime: string;
}

class Acceptor {
  public readonly received: Array<{ type: string; raw: string }> = [];
  public readonly logons: Array<{ user: string; password: string }> = [];
  /** application messages sent, by sequence number, for resends */
  public readonly sentApp = new Map<number, SentApp>();
  public nextSender = 1;
  public lastPeer = 0;
  public port = 0;
  public current: AcceptorSession | null = null;
  private readonly server: net.Server;
  private readonly logFactory = new StderrLogFactory();

  constructor(private readonly definitions: FixDefinitions) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  public async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const addr = this.server.address();
    if (addr === null || typeof addr === "string") throw new Error("no port");
    this.port = addr.port;
  }

  public close(): void {
    this.server.close();
  }

  public receivedOf(type: string): Array<{ type: string; raw: string }> {
    return this.received.filter((m) => m.type === type);
  }

  private accept(socket: net.Socket): void {
    const description: ISessionDescription = {
      application: {
        name: "selftest-acceptor", type: "acceptor", protocol: "ascii", dictionary: "qf50sp2",
        resilient: false, reconnectSeconds: 0, tcp: { host: "127.0.0.1", port: this.port },
      },
      Name: "acceptor",
      BeginString: "FIXT.1.1",
      SenderCompId: venue,
      TargetCompID: client,
      ResetSeqNumFlag: false,
      HeartBtInt: 30,
      Username: "",
      Password: "",
      SenderSubID: undefined as unknown as string,
      TargetSubID: undefined as unknown as string,
      Logon: { DefaultApplVerID: "9" },
    };
    const store = storeAt(description, this.nextSender, this.lastPeer + 1);
    const config = sessionConfig(description, this.definitions, this.logFactory, store);
    const session = new AcceptorSession(config, this);
    const transport = new MsgTransport(2, config, new TcpDuplex(socket));
    const transmitter = transport.transmitter as RawAsciiTransmitter;
    session.transmitter = transmitter;
    this.current = session;
    socket.on("error", () => {});
    socket.on("close", () => {
      this.nextSender = transmitter.msgSeqNum;
      this.lastPeer = session.lastPeerSeqNum();
      if (!session.isStopped()) session.requestStop("closed");
    });
    session.run(transport).catch(() => {});
  }
}

class AcceptorSession extends AsciiSession {
  public transmitter: RawAsciiTransmitter | null = null;
  private peerReset = false;

  constructor(config: IJsFixConfig, private readonly owner: Acceptor) {
    super(config);
    this.on("error", () => {});
  }

  public isStopped(): boolean {
    return this.getState() === SessionState.Stopped;
  }

  /** The Logon answer echoes 141=Y when the client asked for a reset. */
  public override sendLogon(): void {
    const lo = this.config.factory?.logon();
    if (lo !== undefined) this.send("A", { ...lo, ResetSeqNumFlag: this.peerReset ? true : null });
  }

  public askResend(begin: number, end: number): void {
    const rr = this.config.factory?.resendRequest(begin, end);
    if (rr !== undefined) this.send("2", rr);
  }

  public sendApp(type: string, fields: RawField[]): void {
    this.send(type, { [RAW]: { fields } satisfies RawBody }, (error, result) => {
      if (error !== null) throw error;
      const seq = result.header?.["MsgSeqNum"] as number;
      const sent = fieldsOf(result.encoded?.toString("latin1").replaceAll("\x01", "|") ?? "");
      this.owner.sentApp.set(seq, { type, fields, sendingTime: sent.find(([t]) => t === 52)?.[1] ?? "" });
    });
  }

  // A replay as FIX engines do it: application messages again with 43=Y and
  // 122, a SequenceReset-GapFill (43=Y) over everything else; then one live
  // message, which must not look like a gap to the client.
  protected override onResendRequest(view: MsgView): void {
    const begin = view.getTyped(MsgTag.BeginSeqNo) as number;
    let end = view.getTyped(MsgTag.EndSeqNo) as number;
    const last = (this.transmitter?.msgSeqNum ?? 1) - 1;
    if (end === 0 || end > last) end = last;
    let gapFrom = 0;
    const gapFill = (from: number, next: number): void => {
      this.send("4", { [RAW]: { fields: [[123, "Y"], [36, String(next)]], seq: from, header: [[43, "Y"]] } satisfies RawBody });
    };
    for (let s = begin; s <= end; s++) {
      const app = this.owner.sentApp.get(s);
      if (app === undefined) {
        if (gapFrom === 0) gapFrom = s;
        continue;
      }
      if (gapFrom !== 0) {
        gapFill(gapFrom, s);
        gapFrom = 0;
      }
      this.send(app.type, { [RAW]: { fields: app.fields, seq: s, header: [[43, "Y"], [122, app.sendingTime]] } satisfies RawBody });
    }
    if (gapFrom !== 0) gapFill(gapFrom, end + 1);
    this.sendApp("8", [[37, "O1"], [17, "E-live"], [11, "ORD1"], [150, "I"], [39, "0"], [55, "[N/A]"], [48, "XS0000000001"], [22, "4"], [54, "1"], [151, "1000000"], [14, "0"], [6, "0"]]);
  }

  protected onLogon(view: MsgView, user: string, password: string): boolean {
    this.peerReset = view.getTyped(MsgTag.ResetSeqNumFlag) === true;
    if (this.peerReset) this.owner.sentApp.clear();
    this.owner.logons.push({ user, password });
    return password !== "wrong";
  }

  protected onApplicationMsg(msgType: string, view: MsgView): void {
    if (msgType !== "D") return;
    const clOrdID = view.getString(MsgTag.ClOrdID) ?? "";
    // An ExecutionReport with what jspurefix's dictionary does not know:
    // the venue's 36010/36011 at the top level and inside Parties, and an
    // unknown tag 39999.
    this.sendApp("8", [
      [37, "O1"], [17, "E1"], [11, clOrdID], [150, "0"], [39, "0"], [1, "acc-1"],
      [453, "2"], [448, "5493001KJTIIGC8Y1R12"], [447, "N"], [452, "1"], [36011, "inside-group"],
      [448, "DEALER2"], [447, "D"], [452, "3"],
      [55, "[N/A]"], [48, "XS0000000001"], [22, "4"], [54, "1"], [38, "1000000"],
      [151, "1000000"], [14, "0"], [6, "0"], [36010, "5493001KJTIIGC8Y1R12"], [36011, "5493002KJTIIGC8Y1R12"], [39999, "x"],
    ]);
    // and a message type it does not know
    this.sendApp("U9", [[58, "custom message type"]]);
  }

  protected onDecoded(msgType: string, txt: string): void {
    this.owner.received.push({ type: msgType, raw: txt });
  }

  protected onEncoded(): void {}
  protected onReady(): void {}
  protected onStopped(): void {}
}

// ---------------------------------------------------------------------------
// The driver process.

type Line = Record<string, unknown>;

class DriverProc {
  public readonly lines: Line[] = [];
  public exitCode: number | null = null;
  public readonly exited: Promise<number | null>;
  private readonly proc;
  private wake: () => void = () => {};

  constructor() {
    this.proc = spawn("node", [path.join(here, "client.js")], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, FIX_CLIENT_LOG: process.env["FIX_CLIENT_LOG"] ?? "error" },
    });
    readline.createInterface({ input: this.proc.stdout }).on("line", (l: string) => {
      let v: Line;
      try {
        v = JSON.parse(l) as Line;
      } catch {
        throw new Error(`driver printed a non-JSON line: ${l}`);
      }
      if (process.env["SELFTEST_VERBOSE"] !== undefined) process.stderr.write(`  < ${l}\n`);
      this.lines.push(v);
      this.wake();
    });
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => { this.exitCode = code; this.wake(); resolve(code); }));
  }

  public cmd(c: Line): void {
    if (process.env["SELFTEST_VERBOSE"] !== undefined) process.stderr.write(`  > ${JSON.stringify(c)}\n`);
    this.proc.stdin.write(JSON.stringify(c) + "\n");
  }

  public closeStdin(): void {
    this.proc.stdin.end();
  }

  public mark(): number {
    return this.lines.length;
  }

  /** waitFor returns the first line from index `from` on matching `match`. */
  public async waitFor(from: number, match: Line, timeoutMs = 5000): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.slice(from).find((l) => Object.entries(match).every(([k, v]) => l[k] === v));
      if (found !== undefined) return found;
      if (Date.now() > deadline || this.exitCode !== null) {
        throw new Error(`no line ${JSON.stringify(match)}; got:\n${this.lines.slice(from).map((l) => JSON.stringify(l)).join("\n")}`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.wake = () => { clearTimeout(t); resolve(); };
      });
    }
  }

  public since(from: number, match: Line): Line[] {
    return this.lines.slice(from).filter((l) => Object.entries(match).every(([k, v]) => l[k] === v));
  }
}

function tagsOf(raw: unknown): RawField[] {
  assert.equal(typeof raw, "string");
  return fieldsOf(raw as string);
}

function value(fields: RawField[], tag: number): string | undefined {
  return fields.find(([t]) => t === tag)?.[1];
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

// ---------------------------------------------------------------------------

async function main(): Promise<void> {
  const t0 = Date.now();
  const driver = new DriverProc();
  const definitions = await loadDefinitions();
  const acceptor = new Acceptor(definitions);
  await acceptor.listen();
  await driver.waitFor(0, { event: "ready" }, 60_000);
  const ready = Date.now() - t0;
  const step = (name: string): void => { process.stderr.write(`ok  ${name} (${Date.now() - t0} ms)\n`); };
  step(`driver ready after ${ready} ms`);

  const logon = { op: "logon", id: "s1", host: "127.0.0.1", port: acceptor.port, sender: client, target: venue, username: "client-id", password: "secret", heartbeat: 30 };

  // 1. Logon with reset.
  let m = driver.mark();
  driver.cmd({ ...logon, reset: true });
  await driver.waitFor(m, { id: "s1", event: "logon" });
  const sentLogon = await driver.waitFor(m, { id: "s1", event: "sent", type: "A" });
  assert.equal(sentLogon["seq"], 1);
  const ackLogon = await driver.waitFor(m, { id: "s1", event: "msg", type: "A" });
  assert.equal(ackLogon["seq"], 1);
  assert.equal(ackLogon["possdup"], false);
  assert.equal(value(tagsOf(ackLogon["raw"]), 141), "Y");
  const logonIn = tagsOf(acceptor.receivedOf("A")[0]?.raw);
  assert.deepEqual(logonIn.slice(0, 3).map(([t]) => t), [8, 9, 35]);
  assert.equal(value(logonIn, 8), "FIXT.1.1");
  assert.equal(value(logonIn, 49), client);
  assert.equal(value(logonIn, 56), venue);
  assert.equal(value(logonIn, 34), "1");
  assert.equal(value(logonIn, 98), "0");
  assert.equal(value(logonIn, 108), "30");
  assert.equal(value(logonIn, 141), "Y");
  assert.equal(value(logonIn, 553), "client-id");
  assert.equal(value(logonIn, 554), "secret");
  assert.equal(value(logonIn, 1137), "9");
  step("logon with reset: 141=Y 553 554 1137=9");

  // 2. A NewOrderSingle from raw tags, a repeating group in wire order.
  const order: RawField[] = [
    [11, "ORD1"], [1, "acc-1"],
    [453, "1"], [448, "5493001KJTIIGC8Y1R12"], [447, "N"], [452, "3"],
    [55, "[N/A]"], [48, "XS0000000001"], [22, "4"],
    [54, "1"], [60, "20250101-10:00:00.000"], [38, "1000000"], [40, "2"], [44, "99.5"], [423, "1"], [15, "EUR"], [59, "3"],
  ];
  m = driver.mark();
  driver.cmd({ op: "send", id: "s1", type: "D", fields: order });
  const sentD = await driver.waitFor(m, { id: "s1", event: "sent", type: "D" });
  assert.equal(sentD["seq"], 2);
  const er = await driver.waitFor(m, { id: "s1", event: "msg", type: "8" });
  const dIn = tagsOf(acceptor.receivedOf("D")[0]?.raw);
  assert.deepEqual(dIn.slice(0, 7).map(([t]) => t), [8, 9, 35, 49, 56, 34, 52]);
  assert.deepEqual(dIn.slice(7, -1), order);
  assert.equal(dIn.at(-1)?.[0], 10);
  assert.equal(value(dIn, 34), "2");
  step("raw NewOrderSingle received with its tags in order (checksum and body length accepted)");

  // 3. The ExecutionReport, raw, unknown tags and all; an unknown MsgType too.
  assert.equal(er["seq"], 2);
  assert.equal(er["possdup"], false);
  const erFields = tagsOf(er["raw"]);
  assert.deepEqual(erFields.slice(0, 3), [[8, "FIXT.1.1"], [9, erFields[1]?.[1] ?? ""], [35, "8"]]);
  assert.deepEqual(erFields.filter(([t]) => t === 36011).map(([, v]) => v), ["inside-group", "5493002KJTIIGC8Y1R12"]);
  assert.equal(value(erFields, 39999), "x");
  assert.equal(erFields.at(-1)?.[0], 10);
  assert.match(er["raw"] as string, /^8=FIXT\.1\.1\|9=\d+\|35=8\|.*\|10=\d{3}\|$/);
  const custom = await driver.waitFor(m, { id: "s1", event: "msg", type: "U9" });
  assert.equal(custom["seq"], 3);
  await sleep(200);
  assert.equal(driver.since(m, { id: "s1", event: "end" }).length, 0, "the unknown tags ended the session");
  assert.equal(driver.since(m, { id: "s1", event: "sent", type: "3" }).length, 0, "the client rejected a message");
  step("ExecutionReport printed raw with 36010/36011/39999; unknown MsgType U9 accepted");

  // 4. ResendRequest: a replay with a gap fill and PossDup messages, then a live one.
  m = driver.mark();
  driver.cmd({ op: "resend", id: "s1", begin: 1, end: 0 });
  const sent2 = await driver.waitFor(m, { id: "s1", event: "sent", type: "2" });
  assert.equal(sent2["seq"], 3);
  const rr = tagsOf(acceptor.receivedOf("2")[0]?.raw ?? "");
  assert.equal(value(rr, 7), "1");
  assert.equal(value(rr, 16), "0");
  const gap = await driver.waitFor(m, { id: "s1", event: "msg", type: "4" });
  assert.equal(gap["seq"], 1);
  assert.equal(gap["possdup"], true);
  const erAgain = await driver.waitFor(m, { id: "s1", event: "msg", type: "8", possdup: true });
  assert.equal(erAgain["seq"], 2);
  assert.ok(value(tagsOf(erAgain["raw"]), 122) !== undefined);
  await driver.waitFor(m, { id: "s1", event: "msg", type: "U9", possdup: true });
  const live = await driver.waitFor(m, { id: "s1", event: "msg", type: "8", possdup: false });
  assert.equal(live["seq"], 4);
  await sleep(300);
  assert.equal(driver.since(m, { id: "s1", event: "sent", type: "2" }).length, 1, "the client asked for a resend of its own");
  assert.equal(driver.since(m, { id: "s1", event: "end" }).length, 0);
  step("ResendRequest 7=1 16=0: gap fill and PossDup resends printed");

  // A partial replay: the gap fill (34=1, 36=2) lies below what the client
  // has; jspurefix alone would rewind to it and ask again on the next live
  // message.
  m = driver.mark();
  driver.cmd({ op: "resend", id: "s1", begin: 1, end: 2 });
  assert.equal((await driver.waitFor(m, { id: "s1", event: "sent", type: "2" }))["seq"], 4);
  await driver.waitFor(m, { id: "s1", event: "msg", type: "4", possdup: true });
  await driver.waitFor(m, { id: "s1", event: "msg", type: "8", possdup: true });
  assert.equal((await driver.waitFor(m, { id: "s1", event: "msg", type: "8", possdup: false }))["seq"], 5);
  await sleep(300);
  assert.equal(driver.since(m, { id: "s1", event: "sent", type: "2" }).length, 1, "the client asked for a resend of its own");
  assert.equal(driver.since(m, { id: "s1", event: "end" }).length, 0);
  step("ResendRequest 7=1 16=2: no resend of the client's own afterwards");

  // 5. Logout with text.
  m = driver.mark();
  driver.cmd({ op: "logout", id: "s1", text: "bye" });
  const lo = await driver.waitFor(m, { id: "s1", event: "logout" });
  assert.equal(lo["text"], "selftest-acceptor confirming logout");
  await driver.waitFor(m, { id: "s1", event: "end" });
  const sentLo = await driver.waitFor(m, { id: "s1", event: "sent", type: "5" });
  assert.equal(sentLo["seq"], 5);
  assert.equal(value(tagsOf(acceptor.receivedOf("5")[0]?.raw ?? ""), 58), "bye");
  step("logout: 58=bye sent, the answer's text printed, end");

  // 6. Logon again without reset: both sides continue their numbers.
  m = driver.mark();
  driver.cmd({ ...logon, reset: false });
  await driver.waitFor(m, { id: "s1", event: "logon" });
  const sentLogon2 = await driver.waitFor(m, { id: "s1", event: "sent", type: "A" });
  assert.equal(sentLogon2["seq"], 6);
  assert.equal(value(tagsOf(sentLogon2["raw"]), 141), undefined);
  const ack2 = await driver.waitFor(m, { id: "s1", event: "msg", type: "A" });
  assert.equal(ack2["seq"], 7);
  assert.equal(value(tagsOf(acceptor.receivedOf("A")[1]?.raw ?? ""), 141), undefined);
  driver.cmd({ op: "send", id: "s1", type: "D", fields: [[11, "ORD2"], ...order.slice(1)] });
  assert.equal((await driver.waitFor(m, { id: "s1", event: "sent", type: "D" }))["seq"], 7);
  assert.equal((await driver.waitFor(m, { id: "s1", event: "msg", type: "8" }))["seq"], 8);
  step("logon with reset=false: 34 continues (client 6, venue 7), no 141");

  // The venue asks for a resend: jspurefix keeps no outgoing messages, so it
  // answers with one SequenceReset-GapFill over the whole range.
  m = driver.mark();
  acceptor.current?.askResend(2, 0);
  const rrIn = await driver.waitFor(m, { id: "s1", event: "msg", type: "2" });
  assert.equal(rrIn["seq"], 10);
  const gapOut = await driver.waitFor(m, { id: "s1", event: "sent", type: "4" });
  assert.equal(gapOut["seq"], 2);
  assert.equal(gapOut["possdup"], true);
  const gapFields = tagsOf(gapOut["raw"]);
  assert.equal(value(gapFields, 123), "Y");
  assert.equal(value(gapFields, 36), "8");
  assert.equal(driver.since(m, { id: "s1", event: "sent", type: "D" }).length, 0);
  step("a ResendRequest from the venue is answered by one gap fill (34=2 43=Y 123=Y 36=8)");

  // 7. Drop.
  m = driver.mark();
  driver.cmd({ op: "drop", id: "s1" });
  const dropped = await driver.waitFor(m, { id: "s1", event: "end" });
  assert.equal(dropped["reason"], "dropped");
  step("drop: end");

  // 8. A rejected logon, a refused connection, bad commands; sends queued before the Logon.
  m = driver.mark();
  driver.cmd({ ...logon, id: "s2", password: "wrong", reset: true });
  const rej = await driver.waitFor(m, { id: "s2", event: "logout" });
  assert.equal(rej["text"], "logon rejected by application");
  await driver.waitFor(m, { id: "s2", event: "end" });
  assert.equal(driver.since(m, { id: "s2", event: "logon" }).length, 0);
  driver.cmd({ ...logon, id: "s3", port: 1, reset: true });
  driver.cmd({ op: "send", id: "s3", type: "D", fields: order });
  await driver.waitFor(m, { id: "s3", event: "error" });
  await driver.waitFor(m, { id: "s3", event: "end" });
  driver.cmd({ op: "fly", id: "s4" });
  await driver.waitFor(m, { id: "s4", event: "error", message: "unknown op \"fly\"" });
  driver.cmd({ op: "send", id: "nobody", type: "D", fields: [] });
  await driver.waitFor(m, { id: "nobody", event: "error" });
  step("rejected logon (Logout text printed), connection refused, unknown op, unknown session");

  // 9. Several sessions at once, then the end of stdin logs them out.
  m = driver.mark();
  driver.cmd({ ...logon, id: "s5", reset: true });
  driver.cmd({ op: "send", id: "s5", type: "D", fields: [[11, "ORD5"], ...order.slice(1)] });
  await driver.waitFor(m, { id: "s5", event: "logon" });
  await driver.waitFor(m, { id: "s5", event: "msg", type: "8" });
  const stop = Date.now();
  driver.closeStdin();
  const code = await driver.exited;
  assert.equal(code, 0);
  await driver.waitFor(m, { id: "s5", event: "end" });
  assert.equal(driver.since(m, { id: "s5", event: "sent", type: "5" }).length, 1);
  step(`stdin closed: logged out and exited 0 in ${Date.now() - stop} ms`);

  acceptor.close();
  process.stderr.write(`PASS (${Date.now() - t0} ms)\n`);
  process.exit(0);
}

main().catch((e: unknown) => {
  process.stderr.write(`FAIL: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
