// What a store of the screen reads of the session holding it (the Venue):
// the REST client, who is signed in, the markets and instruments, the
// clock, and how to say that something changed or failed.
import type { Api } from "../client/api";
import type { Instrument, Market, User } from "../client/types";

export interface Host {
  readonly api: Api;
  readonly user: User | null;
  readonly markets: Market[];
  readonly isOperator: boolean;
  /** now is the screen's clock (ms), read again every second. */
  readonly now: number;
  /** changed schedules one render for any number of changes in a frame. */
  changed(): void;
  notify(kind: "info" | "error", text: string): void;
  market(id: string): Market | undefined;
  instrument(id: string): Instrument | undefined;
}
