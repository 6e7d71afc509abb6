// A FIX initiator driver for the fix package's end-to-end tests: ONE Node
// process runs any number of jspurefix initiator sessions (FIXT.1.1,
// DefaultApplVerID 9 = FIX.5.0SP2), so the dictionary is loaded once.
//
// Commands come as newline-delimited JSON on stdin, every result goes out
// as one JSON line on stdout (nothing else is written there; diagnostics go
// to stderr). The protocol is described in README.md. Application messages
// are written from raw [tag, value] pairs in the order given; every message
// received, admin or application, is printed raw in wire order.
//
// The file doubles as a small library (RawAsciiTransmitter, sessionConfig,
// loadDefinitions) for selftest.ts; the driver itself starts only when this
// file is the program node runs.
import "reflect-metadata";
import * as net from "node:net";
import * as readline from "node:readline";
import { pathToFileURL } from "node:url";
import {
  AsciiSession,
  AsciiSessionMsgFactory,
  DefinitionFactory,
  DITokens,
  JsFixConfig,
  JsFixLoggerFactory,
  MemorySessionStore,
  MsgTag,
  MsgTransport,
  MsgType,
  SessionContainer,
  SessionId,
  SessionState,
  TcpDuplex,
  type ElasticBuffer,
  type FixDefinitions,
  type IFixSessionStore,
  type IJsFixConfig,
  type IJsFixLogger,
  type ILooseObject,
  type ISessionDescription,
  type MsgView,
  type SendCallback,
} from "jspurefix";
import { AsciiMsgTransmitter } from "jspurefix/dist/transport/ascii/ascii-msg-transmitter.js";
import type { AsciiEncoder } from "jspurefix/dist/buffer/ascii/ascii-encoder.js";

// ---------------------------------------------------------------------------
// Output and logging.

/** print writes one protocol line to stdout. */
export function print(line: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(line) + "\n");
}

/** diag writes one diagnostic line to stderr. */
export function diag(message: string): void {
  process.stderr.write(`fixclient: ${message}\n`);
}

const levels = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 } as const;
type Level = keyof typeof levels;

function logLevel(): number {
  const v = process.env["FIX_CLIENT_LOG"] ?? "error";
  return v in levels ? levels[v as Level] : levels.error;
}

/** StderrLogFactory sends jspurefix's own logging to stderr (never stdout),
 * filtered by FIX_CLIENT_LOG (silent|error|warn|info|debug, default error). */
export class StderrLogFactory extends JsFixLoggerFactory {
  private readonly level = logLevel();

  public logger(type: string): IJsFixLogger {
    const level = this.level;
    const write = (kind: string, message: string): void => {
      process.stderr.write(`jspurefix ${kind} [${type}] ${message}\n`);
    };
    return {
      info: (m: string) => { if (level >= levels.info) write("info", m); },
      warning: (m: string) => { if (level >= levels.warn) write("warn", m); },
      debug: (m: string) => { if (level >= levels.debug) write("debug", m); },
      error: (e: Error) => { if (level >= levels.error) write("error", e.message); },
    };
  }

  public plain(fileName: string): IJsFixLogger {
    return this.logger(fileName);
  }
}

// ---------------------------------------------------------------------------
// Raw messages.

/** A field as the tests write it: [tag, value], in wire order. */
export type RawField = [number, string];

/** RawBody is a message body given as raw fields. header holds extra header
 * fields (e.g. 43 PossDupFlag, 122 OrigSendingTime) written after the
 * standard ones; seq, when set, is used as 34 MsgSeqNum without advancing
 * the session's counter. */
export interface RawBody {
  fields: RawField[];
  header?: RawField[];
  seq?: number;
}

/** The key under which a raw body travels through jspurefix's send path. */
export const RAW = "__bondvenueRaw";

/** RawAsciiTransmitter is jspurefix's ASCII transmitter that, for a message
 * carrying RAW, writes the standard header (8 9 35 49 56 34 52) from the
 * session, then the raw fields exactly as given, then 10. Everything else
 * (Logon, Heartbeat, gap fills...) is encoded by jspurefix as usual. */
export class RawAsciiTransmitter extends AsciiMsgTransmitter {
  public override encodeMessage(msgType: string, obj: ILooseObject): ILooseObject | null {
    const raw = obj[RAW] as RawBody | undefined;
    if (raw === undefined) {
      return super.encodeMessage(msgType, obj);
    }
    const encoder = this.encoder as AsciiEncoder;
    const factory = this.config.factory;
    const seq = raw.seq ?? this.msgSeqNum;
    const hdr = factory?.header(msgType, seq, new Date(), {}) ?? null;
    if (hdr === null) {
      return null;
    }
    if (raw.seq === undefined) {
      this.msgSeqNum++;
    }
    const buffer = this.buffer;
    buffer.reset();
    const components = this.config.definitions.component;
    encoder.encode(hdr, components.get("StandardHeader")?.name ?? "header");
    for (const [tag, value] of raw.header ?? []) {
      writeRawField(buffer, encoder, tag, value);
    }
    for (const [tag, value] of raw.fields) {
      writeRawField(buffer, encoder, tag, value);
    }
    const lenChars = Math.max(4, this.config.description.BodyLengthChars ?? 7);
    buffer.patchPaddedNumberAtPos(encoder.bodyLengthPos, buffer.getPos() - encoder.msgTypePos, lenChars);
    // The buffer holds the log delimiter where the wire has SOH; trim()
    // swaps them at every stored tag, so the checksum is corrected the same way.
    let sum = buffer.sum();
    sum += encoder.tags.nextTagPos * (encoder.delimiter - encoder.logDelimiter);
    const trailer = factory?.trailer(((sum % 256) + 256) % 256) ?? null;
    if (trailer !== null) {
      encoder.encode(trailer, components.get("StandardTrailer")?.name ?? "trailer");
    }
    return hdr;
  }
}

function writeRawField(buffer: ElasticBuffer, encoder: AsciiEncoder, tag: number, value: string): void {
  buffer.writeWholeNumber(tag);
  buffer.writeChar(61); // '='
  const start = buffer.getPos();
  buffer.writeBuffer(Buffer.from(value, "utf8"));
  encoder.tags.store(start, buffer.getPos() - start, tag);
  buffer.writeChar(encoder.logDelimiter);
}

// ---------------------------------------------------------------------------
// Sessions.

/** The dictionary: jspurefix's own FIX50SP2 (QuickFIX layout, admin messages
 * included), or FIX_CLIENT_DICTIONARY (a jspurefix dictionary name or path). */
export async function loadDefinitions(): Promise<FixDefinitions> {
  const dict = process.env["FIX_CLIENT_DICTIONARY"] ?? "qf50sp2";
  return await new DefinitionFactory().getDefinitions(dict);
}

const containers = new SessionContainer();
let globalsRegistered = false;

/** sessionConfig builds a jspurefix config (and its DI container) for one
 * connection, with the raw-capable transmitter and the given store. */
export function sessionConfig(description: ISessionDescription, definitions: FixDefinitions,
  logFactory: JsFixLoggerFactory, store: IFixSessionStore): IJsFixConfig {
  if (!globalsRegistered) {
    containers.registerGlobal(logFactory);
    globalsRegistered = true;
  }
  const child = containers.newChild(description);
  const config = new JsFixConfig(new AsciiSessionMsgFactory(description), definitions, description, 1, logFactory);
  config.sessionStoreFactory = { create: () => store };
  containers.registerSession(config, child);
  child.register(DITokens.MsgTransmitter, {
    useFactory: (c) => new RawAsciiTransmitter(c.resolve<IJsFixConfig>(DITokens.IJsFixConfig)),
  });
  return config;
}

/** A store starting at the given sequence numbers (next to send, next expected). */
export function storeAt(description: ISessionDescription, nextSender: number, nextTarget: number): MemorySessionStore {
  const store = new MemorySessionStore(new SessionId(description.BeginString, description.SenderCompId, description.TargetCompID));
  store.senderSeqNum = nextSender;
  store.targetSeqNum = nextTarget;
  return store;
}

/** fieldsOf splits a pipe-delimited message into [tag, value] pairs. */
export function fieldsOf(raw: string): RawField[] {
  const out: RawField[] = [];
  for (const part of raw.split("|")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    out.push([Number(eq < 0 ? part : part.slice(0, eq)), eq < 0 ? "" : part.slice(eq + 1)]);
  }
  return out;
}

/** What a driver session reports to the driver. */
interface Hooks {
  received(msgType: string, raw: string): void;
  sent(msgType: string, hdr: ILooseObject | null, raw: string): void;
  ready(): void;
  stopped(error?: Error): void;
}

/** DriverSession is a jspurefix initiator session that reports every message
 * in and out and can send raw bodies. */
class DriverSession extends AsciiSession {
  constructor(config: IJsFixConfig, private readonly hooks: Hooks) {
    super(config);
    // jspurefix emits 'error' when a session ends abnormally; the driver
    // reports that through onStopped, so an extra listener keeps an
    // unlistened 'error' from throwing.
    this.on("error", () => {});
  }

  public sendRaw(msgType: string, body: RawBody, callback: SendCallback): void {
    this.send(msgType, { [RAW]: body }, callback);
  }

  public requestResend(begin: number, end: number): void {
    const o = this.config.factory?.resendRequest(begin, end);
    if (o !== undefined) this.send(MsgType.ResendRequest, o);
  }

  /** logoutWith sends a Logout (58 = text unless empty) and waits for the
   * peer's Logout, whatever state the session is in. */
  public logoutWith(text: string): void {
    if (this.sessionState.state === SessionState.Stopped) return;
    this.setState(SessionState.WaitingLogoutConfirm);
    this.sessionState.logoutSentAt = new Date();
    this.sendLogout(text);
  }

  public stopped(): boolean {
    return this.sessionState.state === SessionState.Stopped;
  }

  protected override rxOnDecoded(msgType: string, data: ElasticBuffer, ptr: number): void {
    this.hooks.received(msgType, data.slice().subarray(0, ptr).toString("utf8"));
    super.rxOnDecoded(msgType, data, ptr);
  }

  protected override txOnEncoded(msgType: string, data: string, hdr: ILooseObject): void {
    super.txOnEncoded(msgType, data, hdr);
    const buffer = this.transport?.transmitter.buffer;
    this.hooks.sent(msgType, hdr, buffer !== undefined ? buffer.slice().toString("utf8") : data);
  }

  // jspurefix sets its next expected sequence number to NewSeqNo-1 on every
  // SequenceReset, even on a gap fill replayed (43=Y) inside a resend that
  // lies below what it has already received; the next live message then
  // looks like a gap and it sends a ResendRequest of its own. FIX says such a
  // SequenceReset is ignored: so it is here.
  protected override onSessionMsg(msgType: string, view: MsgView): void {
    if (msgType === MsgType.SequenceReset) {
      const newSeqNo = view.getTyped(MsgTag.NewSeqNo);
      if (typeof newSeqNo === "number" && newSeqNo - 1 < this.sessionState.lastPeerMsgSeqNum) {
        diag(`${this.config.description.application?.name}: ignoring SequenceReset to ${newSeqNo} below ${this.sessionState.lastPeerMsgSeqNum + 1}`);
        return;
      }
    }
    super.onSessionMsg(msgType, view);
  }

  protected onApplicationMsg(): void {}
  protected onDecoded(): void {}
  protected onEncoded(): void {}
  protected onLogon(): boolean { return true; }
  protected onReady(): void { this.hooks.ready(); }
  protected onStopped(error?: Error): void { this.hooks.stopped(error); }
}

// ---------------------------------------------------------------------------
// The driver.

/** Sequence state kept per session name across logons. */
interface SeqState {
  nextSender: number;
  lastPeer: number;
}

interface Live {
  id: string;
  socket: net.Socket;
  session: DriverSession | null;
  transmitter: RawAsciiTransmitter | null;
  logonSent: boolean;
  queue: Array<() => void>;
  ended: boolean;
  reason: string | undefined;
  logoutTimer: NodeJS.Timeout | null;
  logoutReceived: boolean;
}

type Command = Record<string, unknown>;

const logoutGraceMs = 10_000;

class Driver {
  private readonly live = new Map<string, Live>();
  private readonly seqs = new Map<string, SeqState>();
  private readonly logFactory = new StderrLogFactory();

  constructor(private readonly definitions: FixDefinitions) {}

  public liveCount(): number {
    return this.live.size;
  }

  public handle(line: string): void {
    let cmd: Command;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("not a JSON object");
      cmd = v as Command;
    } catch (e) {
      print({ event: "error", message: `bad command: ${(e as Error).message}` });
      return;
    }
    const id = typeof cmd["id"] === "string" ? cmd["id"] : "";
    try {
      if (id === "") throw new Error("command without an id");
      switch (cmd["op"]) {
        case "logon": this.logon(id, cmd); break;
        case "send": this.onLive(id, (l) => this.send(l, cmd)); break;
        case "resend": this.onLive(id, (l) => this.resend(l, cmd)); break;
        case "logout": this.onLive(id, (l) => this.logout(l, str(cmd, "text", ""))); break;
        case "drop": this.drop(id); break;
        default: throw new Error(`unknown op ${JSON.stringify(cmd["op"])}`);
      }
    } catch (e) {
      print(id === "" ? { event: "error", message: (e as Error).message } : { id, event: "error", message: (e as Error).message });
    }
  }

  /** shutdown logs every session out (closing those not yet logged on)
   * and resolves once all are closed, or after a grace period. */
  public async shutdown(graceMs: number): Promise<void> {
    for (const l of this.live.values()) {
      if (l.session !== null && l.logonSent && !l.session.stopped()) {
        this.logout(l, "");
      } else {
        l.socket.destroy();
      }
    }
    const deadline = Date.now() + graceMs;
    while (this.live.size > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const l of this.live.values()) l.socket.destroy();
  }

  private onLive(id: string, f: (l: Live) => void): void {
    const l = this.live.get(id);
    if (l === undefined || l.ended) throw new Error(`no connected session ${id}`);
    // Commands given before the Logon went out wait for it, in order.
    if (!l.logonSent) {
      l.queue.push(() => {
        try {
          f(l);
        } catch (e) {
          print({ id, event: "error", message: (e as Error).message });
        }
      });
      return;
    }
    f(l);
  }

  private logon(id: string, cmd: Command): void {
    if (this.live.has(id)) throw new Error(`session ${id} is still connected`);
    const port = num(cmd, "port");
    const host = str(cmd, "host", "127.0.0.1");
    const sender = str(cmd, "sender");
    const target = str(cmd, "target");
    const reset = bool(cmd, "reset", true);
    const heartbeat = num(cmd, "heartbeat", 30);
    const username = optStr(cmd, "username");
    const password = optStr(cmd, "password");
    const logonExtra: ILooseObject = { DefaultApplVerID: "9" };
    if (!reset) logonExtra["ResetSeqNumFlag"] = null; // omit 141 rather than send 141=N
    const description: ISessionDescription = {
      application: {
        name: id,
        type: "initiator",
        protocol: "ascii",
        dictionary: "qf50sp2",
        resilient: false,
        reconnectSeconds: 0,
        tcp: { host, port },
      },
      Name: id,
      BeginString: "FIXT.1.1",
      SenderCompId: sender,
      TargetCompID: target,
      ResetSeqNumFlag: reset,
      HeartBtInt: heartbeat,
      Username: username as string,
      Password: password as string,
      SenderSubID: undefined as unknown as string,
      TargetSubID: undefined as unknown as string,
      Logon: logonExtra,
    };
    let seq = this.seqs.get(id);
    if (seq === undefined || reset) {
      seq = { nextSender: 1, lastPeer: 0 };
      this.seqs.set(id, seq);
    }
    const state = seq;
    const store = storeAt(description, state.nextSender, state.lastPeer + 1);
    const socket = new net.Socket();
    const l: Live = {
      id, socket, session: null, transmitter: null, logonSent: false, queue: [],
      ended: false, reason: undefined, logoutTimer: null, logoutReceived: false,
    };
    this.live.set(id, l);
    let connected = false;
    const connectTimer = setTimeout(() => {
      if (!connected) {
        l.reason = "connect timeout";
        print({ id, event: "error", message: `connect ${host}:${port}: timeout` });
        socket.destroy();
      }
    }, 10_000);
    socket.on("error", (e: Error) => {
      if (!connected) {
        l.reason = `connect failed: ${e.message}`;
        print({ id, event: "error", message: `connect ${host}:${port}: ${e.message}` });
      } else if (l.reason === undefined) {
        l.reason = e.message;
      }
    });
    socket.on("close", () => {
      clearTimeout(connectTimer);
      this.closed(l, state);
    });
    socket.connect({ host, port }, () => {
      connected = true;
      clearTimeout(connectTimer);
      socket.setNoDelay(true);
      try {
        this.start(l, description, store, state);
      } catch (e) {
        print({ id, event: "error", message: `session: ${(e as Error).message}` });
        socket.destroy();
      }
    });
  }

  private start(l: Live, description: ISessionDescription, store: IFixSessionStore, state: SeqState): void {
    const id = l.id;
    const config = sessionConfig(description, this.definitions, this.logFactory, store);
    const hooks: Hooks = {
      received: (msgType, raw) => {
        const fields = fieldsOf(raw);
        const seq = Number(fields.find(([t]) => t === 34)?.[1] ?? NaN);
        const possdup = fields.find(([t]) => t === 43)?.[1] === "Y";
        print({ id, event: "msg", type: msgType, seq: Number.isFinite(seq) ? seq : null, possdup, raw });
        if (msgType === MsgType.Logout) {
          l.logoutReceived = true;
          const text = fields.find(([t]) => t === 58)?.[1];
          print(text === undefined ? { id, event: "logout" } : { id, event: "logout", text });
        }
      },
      sent: (msgType, hdr, raw) => {
        const seq = hdr?.["MsgSeqNum"];
        const possdup = hdr?.["PossDupFlag"] === true || /\|43=Y\|/.test(raw);
        print({ id, event: "sent", type: msgType, seq: typeof seq === "number" ? seq : null, possdup, raw });
        if (msgType === MsgType.Logon && !l.logonSent) {
          l.logonSent = true;
          const queued = l.queue.splice(0);
          // after the Logon has been handed to the transport
          setImmediate(() => { for (const f of queued) f(); });
        }
      },
      ready: () => print({ id, event: "logon" }),
      stopped: (error) => {
        if (error !== undefined && l.reason === undefined) l.reason = error.message;
        this.remember(l, state);
      },
    };
    const session = new DriverSession(config, hooks);
    const transport = new MsgTransport(1, config, new TcpDuplex(l.socket));
    l.session = session;
    l.transmitter = transport.transmitter as RawAsciiTransmitter;
    session.run(transport).catch((e: Error) => {
      if (l.reason === undefined) l.reason = e.message;
    });
  }

  /** remember keeps the session's sequence numbers for a later logon with
   * reset=false. */
  private remember(l: Live, state: SeqState): void {
    if (l.transmitter !== null) state.nextSender = l.transmitter.msgSeqNum;
    if (l.session !== null) state.lastPeer = l.session.lastPeerSeqNum();
  }

  private closed(l: Live, state: SeqState): void {
    if (l.ended) return;
    l.ended = true;
    if (l.logoutTimer !== null) clearTimeout(l.logoutTimer);
    if (l.session !== null && !l.session.stopped()) {
      l.session.requestStop("connection closed");
    }
    this.remember(l, state);
    this.live.delete(l.id);
    for (const f of l.queue.splice(0)) f(); // they report the closed session
    // After a Logout from the peer the end is a normal one: no reason.
    const reason = l.logoutReceived && l.reason !== "dropped" ? undefined : l.reason;
    print(reason === undefined ? { id: l.id, event: "end" } : { id: l.id, event: "end", reason });
  }

  private send(l: Live, cmd: Command): void {
    const type = str(cmd, "type");
    const body: RawBody = { fields: rawFields(cmd, "fields") };
    if (cmd["header"] !== undefined) body.header = rawFields(cmd, "header");
    if (cmd["seq"] !== undefined) body.seq = num(cmd, "seq");
    this.session(l).sendRaw(type, body, (error) => {
      if (error !== null) print({ id: l.id, event: "error", message: `send ${type}: ${error.message}` });
    });
  }

  private resend(l: Live, cmd: Command): void {
    this.session(l).requestResend(num(cmd, "begin"), num(cmd, "end", 0));
  }

  private logout(l: Live, text: string): void {
    this.session(l).logoutWith(text);
    if (l.logoutTimer === null) {
      l.logoutTimer = setTimeout(() => {
        if (!l.ended) {
          l.reason ??= "no Logout answer";
          l.socket.destroy();
        }
      }, logoutGraceMs);
    }
  }

  private drop(id: string): void {
    const l = this.live.get(id);
    if (l === undefined) throw new Error(`no connected session ${id}`);
    l.reason ??= "dropped";
    l.socket.destroy();
  }

  private session(l: Live): DriverSession {
    if (l.session === null || l.ended || l.session.stopped()) throw new Error(`session ${l.id} has ended`);
    return l.session;
  }
}

function str(cmd: Command, key: string, def?: string): string {
  const v = cmd[key];
  if (v === undefined && def !== undefined) return def;
  if (typeof v !== "string") throw new Error(`${key}: a string is required`);
  return v;
}

function optStr(cmd: Command, key: string): string | undefined {
  const v = cmd[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new Error(`${key}: a string is required`);
  return v;
}

function num(cmd: Command, key: string, def?: number): number {
  const v = cmd[key];
  if (v === undefined && def !== undefined) return def;
  if (typeof v !== "number" || !Number.isInteger(v)) throw new Error(`${key}: an integer is required`);
  return v;
}

function bool(cmd: Command, key: string, def: boolean): boolean {
  const v = cmd[key];
  if (v === undefined) return def;
  if (typeof v !== "boolean") throw new Error(`${key}: true or false is required`);
  return v;
}

function rawFields(cmd: Command, key: string): RawField[] {
  const v = cmd[key];
  if (!Array.isArray(v)) throw new Error(`${key}: a list of [tag, value] is required`);
  return v.map((f: unknown, i: number): RawField => {
    if (!Array.isArray(f) || f.length !== 2) throw new Error(`${key}[${i}]: [tag, value] is required`);
    const [t, val] = f as [unknown, unknown];
    const tag = typeof t === "string" && /^[0-9]+$/.test(t) ? Number(t) : t;
    if (typeof tag !== "number" || !Number.isInteger(tag) || tag <= 0) throw new Error(`${key}[${i}]: bad tag ${JSON.stringify(t)}`);
    if (typeof val !== "string" && typeof val !== "number") throw new Error(`${key}[${i}]: the value must be a string`);
    return [tag, String(val)];
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  // Lines that arrive while the dictionary loads wait, in order.
  const pending: string[] = [];
  let driver: Driver | null = null;
  let stdinClosed = false;
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line: string) => {
    if (line.trim() === "") return;
    if (driver === null) pending.push(line);
    else driver.handle(line);
  });
  const closed = new Promise<void>((resolve) => rl.on("close", () => { stdinClosed = true; resolve(); }));

  const definitions = await loadDefinitions();
  driver = new Driver(definitions);
  diag(`dictionary loaded in ${Date.now() - started} ms`);
  print({ event: "ready" });
  for (const line of pending.splice(0)) driver.handle(line);

  if (!stdinClosed) await closed;
  // Let sessions still connecting settle before logging them out.
  await new Promise((r) => setTimeout(r, 50));
  await driver.shutdown(5_000);
  process.exit(0);
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  // Whoever reads stdout is gone (EPIPE): nothing more can be reported.
  process.stdout.on("error", (e: Error) => {
    diag(`stdout: ${e.message}; exiting`);
    process.exit(1);
  });
  process.on("uncaughtException", (e: Error) => {
    // Never die on one session's fault: report it and carry on.
    diag(e.stack ?? e.message);
    try {
      print({ event: "error", message: `uncaught: ${e.message}` });
    } catch {
      process.exit(1);
    }
  });
  main().catch((e: Error) => {
    print({ event: "error", message: `fatal: ${e.message}` });
    process.exit(1);
  });
}
