// What the browser journeys (run.ts, live.ts) share: the demo credentials,
// the environment they read (BASE_URL, CREDENTIALS, CHROMIUM, SCREENSHOTS)
// and the helpers both use to run steps, open pages and sign in and out.
import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync } from "node:fs";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";

export interface UserCred {
  email: string;
  role?: string;
  client_id: string;
  client_secret: string;
  user_id?: string;
}
export interface Creds {
  operator: UserCred;
  participants: { id: string; name: string; users: UserCred[] }[];
}

export const base = process.env.BASE_URL ?? "http://127.0.0.1:8080";
export const creds = JSON.parse(readFileSync(process.env.CREDENTIALS ?? "bondvenue-data/demo-credentials.json", "utf8")) as Creds;
/** timeout bounds a wait on the screen's answer to the trader. */
export const timeout = 15_000;

/** screenshots returns the folder for the screenshots (SCREENSHOTS, else def), made if missing. */
export function screenshots(def: string): string {
  const dir = process.env.SCREENSHOTS ?? def;
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** launch starts Chromium (CHROMIUM, default /usr/bin/chromium). */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}

/** user returns the demo firm's user of that role. */
export function user(firm: number, role: "ADMIN" | "TRADER" | "VIEWER"): UserCred {
  const u = creds.participants[firm]?.users.find((x) => x.role === "PARTICIPANT_" + role);
  assert.ok(u, `demo firm ${firm} has a ${role}`);
  return u;
}

export function firmName(firm: number): string {
  return creds.participants[firm]!.name;
}

/** step runs fn and prints it as passed, with its duration, or failed. */
export async function step(name: string, fn: () => Promise<void>): Promise<void> {
  const t0 = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    console.log(`FAIL ${name}: ${(e as Error).stack ?? e}`);
    throw e;
  }
}

/** newPage opens a page in a context of its own, as a desk's screen in that time zone (default Europe/Berlin). */
export async function newPage(browser: Browser, opts: { timezoneId?: string } = {}): Promise<[BrowserContext, Page]> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: opts.timezoneId ?? "Europe/Berlin" });
  const page = await ctx.newPage();
  page.setDefaultTimeout(timeout);
  page.on("pageerror", (e) => console.log("page error:", e.message));
  return [ctx, page];
}

/**
 * signIn signs u in and waits for the live stream. The form is sent by
 * Enter in the secret field, or by its button with submit: "button".
 */
export async function signIn(page: Page, u: UserCred, opts: { submit?: "enter" | "button" } = {}): Promise<void> {
  await page.goto(base + "/");
  await page.getByLabel("Client ID", { exact: true }).fill(u.client_id);
  await page.getByLabel("Client secret", { exact: true }).fill(u.client_secret);
  if (opts.submit === "button") await page.getByRole("button", { name: "Sign in" }).click();
  else await page.getByLabel("Client secret", { exact: true }).press("Enter"); // keyboard: Enter submits
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  await page.getByRole("status", { name: "Stream live" }).waitFor();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Client ID", { exact: true }).waitFor();
}

/** bookOn is the instrument page's depth of one market. */
export const bookOn = (p: Page, market: string) => p.getByRole("table", { name: "Depth on " + market, exact: true });

/**
 * settlementKnown waits until the calculator's settlement date is filled
 * in: the screen reads the default date from the venue after the page
 * opens, and a computation asked before it has no date to settle on.
 */
export async function settlementKnown(page: Page): Promise<void> {
  await page.waitForFunction(() => !!(document.querySelector(".calc input[placeholder=\"YYYY-MM-DD\"]") as HTMLInputElement | null)?.value);
}

/**
 * confirmed runs an action the consoles ask about (a halt, a kill switch,
 * disabling a user, revoking a credential): its button, the reason, and
 * Confirm.
 */
export async function confirmed(page: Page, label: string, reason: string): Promise<void> {
  await page.getByRole("button", { name: label, exact: true }).click();
  await page.getByLabel("Reason: " + label, { exact: true }).fill(reason);
  await page.getByRole("button", { name: "Confirm: " + label, exact: true }).click();
}
