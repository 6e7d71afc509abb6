// Browser tests of the operator's and the firm admin's consoles: Debian's
// Chromium driven by playwright-core against a running venue
// (`bondvenue serve --demo --demo-market=false`). cmd/bondvenue's
// TestBrowserConsoles starts the venue and runs this; by hand:
//
//   BASE_URL=http://127.0.0.1:8080 CREDENTIALS=bondvenue-data/demo-credentials.json \
//     node web/e2e/dist/consoles.js
//
// Environment: as run.ts. Screenshots of every console view, at 1440×900
// and 1280×720, go to SCREENSHOTS (default web/e2e/screenshots).
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { type Page } from "playwright-core";
import { type UserCred, base, bookOn, confirmed, creds, firmName, launch, newPage, screenshots, signIn, step, user } from "./common.js";

const shots = screenshots("web/e2e/screenshots");
const bond = "DBR 2.30 15/02/2033";
const market = "bondvenue Continuous";

async function openInstrument(page: Page, name: string): Promise<void> {
  await page.getByRole("link", { name: "Market", exact: true }).click();
  await page.getByRole("searchbox").fill(name);
  await page.getByRole("link", { name }).click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
  await page.getByRole("combobox", { name: "Market", exact: true }).selectOption({ label: market });
}

/**
 * place sends the ticket as filled in, once it shows the order's
 * settlement amount: the ticket is ready (its default settlement date
 * read from the venue).
 */
async function place(page: Page, side: "bid" | "ask"): Promise<void> {
  await page.locator(".ticket .preview").getByText(/\d EUR$/).first().waitFor();
  await page.getByRole("button", { name: "Place " + side, exact: true }).click();
}

/** console opens a view of the operator's console. */
async function consoleView(page: Page, name: string): Promise<void> {
  await page.getByRole("link", { name: "Operator", exact: true }).click();
  await page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name, exact: true }).click();
}

/** lei makes a valid LEI (ISO 17442 check digits) of an 18-character prefix. */
function lei(prefix: string): string {
  const digits = (prefix + "00").replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rem = 0;
  for (const d of digits) rem = (rem * 10 + Number(d)) % 97;
  return prefix + String(98 - rem).padStart(2, "0");
}

async function token(u: UserCred): Promise<string> {
  const res = await fetch(base + "/api/v1/auth/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ grant_type: "client_credentials", client_id: u.client_id, client_secret: u.client_secret }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function main(): Promise<void> {
  const browser = await launch();
  try {
    const [octx, op] = await newPage(browser);
    await signIn(op, creds.operator);
    const [tctx, trader] = await newPage(browser);
    await signIn(trader, user(1, "TRADER"));

    await step("the operator halts a bond with a reason; a trader's ticket shows it, and the audit trail", async () => {
      await openInstrument(trader, bond);
      await consoleView(op, "Markets");
      await op.getByRole("table", { name: "Markets" }).getByRole("link", { name: market, exact: true }).click();
      const instruments = op.getByRole("table", { name: "Instruments on " + market });
      const what = `${bond} on ${market}`;
      // No halt without a reason.
      await op.getByRole("button", { name: "Halt " + what, exact: true }).click();
      await op.getByRole("button", { name: "Confirm: Halt " + what, exact: true }).click();
      await op.getByText("Give the reason: the audit trail records it").waitFor();
      await op.getByRole("button", { name: "Keep: Halt " + what, exact: true }).click();
      const t0 = Date.now();
      await confirmed(op, "Halt " + what, "Issuer announcement pending");
      await instruments.locator("tr", { hasText: bond }).getByText("halted · Issuer announcement pending").waitFor();
      await trader.getByText("Halted: Issuer announcement pending").waitFor();
      console.log(`     the trader's ticket showed the halt ${Date.now() - t0} ms after the operator confirmed it`);
      await op.getByRole("button", { name: "Halt history of " + what, exact: true }).click();
      await op.getByRole("table", { name: `Halt history of ${what}` }).getByText("Issuer announcement pending").first().waitFor();
      await op.screenshot({ path: join(shots, "consoles-halt.png") });
      await confirmed(op, "Resume " + what, "Announcement published");
      await trader.getByText("Halted: Issuer announcement pending").waitFor({ state: "detached" });
      await consoleView(op, "Audit trail");
      await op.getByLabel("Entity", { exact: true }).fill("halt");
      await op.getByRole("button", { name: "Show entries" }).click();
      const audit = op.getByRole("table", { name: "Audit entries" });
      const halt = audit.locator("tr", { hasText: "instrument.halt" });
      await halt.getByRole("cell", { name: "Issuer announcement pending", exact: true }).waitFor();
      await halt.locator("summary").getByText(/halted: false → true/).waitFor(); // before and after
      await audit.locator("tr", { hasText: "instrument.resume" }).getByRole("cell", { name: "Announcement published", exact: true }).waitFor();
    });

    await step("the operator changes a market's collar; a wrong value is shown next to its field", async () => {
      await consoleView(op, "Markets");
      await op.getByRole("table", { name: "Markets" }).getByRole("link", { name: market, exact: true }).click();
      const settings = op.getByRole("form", { name: "Settings of " + market });
      const collar = settings.getByLabel("Price collar %", { exact: true });
      await collar.fill("abc");
      await op.getByRole("button", { name: "Save settings of " + market }).click();
      await settings.locator(".field.invalid", { has: op.getByText("Price collar %", { exact: true }) }).getByRole("alert").waitFor();
      await collar.fill("7.5");
      await op.getByRole("button", { name: "Save settings of " + market }).click();
      await op.getByRole("table", { name: "Markets" }).locator("tr", { hasText: market }).getByRole("cell", { name: "7.5", exact: true }).waitFor();
      await consoleView(op, "Audit trail");
      await op.getByLabel("Entity", { exact: true }).fill("market");
      await op.getByRole("button", { name: "Show entries" }).click();
      await op.getByRole("table", { name: "Audit entries" }).locator("tr", { hasText: "market.update" }).locator("summary").getByText(/price_collar_percent: [^,]*→ "?7\.5/).first().waitFor();
    });

    let fresh: UserCred = { email: "", client_id: "", client_secret: "" };
    const firm = "Nordsee Rentenhandel AG";
    await step("the operator onboards a firm; its first trader signs in with the credential shown once", async () => {
      await consoleView(op, "Participants");
      const form = op.getByRole("form", { name: "Onboard a firm" });
      await form.getByLabel("Firm name", { exact: true }).fill(firm);
      await form.getByLabel("LEI", { exact: true }).fill("529900T8BM49AURSDO56");
      await form.getByLabel("Country", { exact: true }).fill("DE");
      await op.getByRole("button", { name: "Onboard firm" }).click();
      await form.getByText("has wrong check digits (ISO 17442)").waitFor(); // checked before it is sent
      await form.getByLabel("LEI", { exact: true }).fill(lei("5299000NORDSEE0001"));
      await op.getByRole("button", { name: "Onboard firm" }).click();
      await op.getByRole("heading", { name: firm, exact: true }).waitFor();
      await op.getByLabel("Account number", { exact: true }).fill("NORDSEE-0001");
      await op.getByRole("button", { name: "Open account" }).click();
      await op.getByRole("table", { name: "Accounts of " + firm }).getByText("NORDSEE-0001").waitFor();
      for (const n of ["MAX_OFFER", "MAX_OFFER_VALUE", "ALL_OFFER_SUM", "ALL_OFFER_USER_SUM"]) {
        await op.getByLabel(n, { exact: true }).fill("50000000");
        await op.getByRole("button", { name: "Set " + n, exact: true }).click();
        // Set, the firm is read again and the limit is no longer "not set".
        await op.locator(".field", { has: op.getByLabel(n, { exact: true }) }).getByText("not set").waitFor({ state: "detached" });
      }
      await op.getByRole("button", { name: `Let ${firm} trade with ${firmName(1)}`, exact: true }).click();
      await op.getByRole("button", { name: `End trading between ${firm} and ${firmName(1)}`, exact: true }).waitFor();
      const email = "trader@nordsee.example";
      await op.getByLabel("New user's email", { exact: true }).fill(email);
      await op.getByRole("button", { name: "Create user" }).click();
      const once = op.getByRole("status", { name: "New credential" });
      await once.waitFor();
      fresh = {
        email,
        client_id: (await once.getByTestId("new-client-id").innerText()).trim(),
        client_secret: (await once.getByTestId("new-client-secret").innerText()).trim(),
      };
      assert.ok(fresh.client_secret.length > 10, "the secret is shown");
      await op.screenshot({ path: join(shots, "consoles-onboarded.png") });
      await op.getByRole("button", { name: "I have kept it" }).click();
      await once.waitFor({ state: "detached" });
      assert.equal(await op.getByText(fresh.client_secret).count(), 0, "the secret is shown only once");
    });

    await step("the new firm's trader trades with a demo firm", async () => {
      const [nctx, n] = await newPage(browser);
      await signIn(n, fresh);
      await openInstrument(n, bond);
      await n.getByLabel("Clean price (%)", { exact: true }).fill("99.5");
      await n.getByLabel("Quantity (nominal)", { exact: true }).fill("1000000");
      // A refusal is said in a notice that goes after seconds: it is kept for the failure's message.
      const refused: string[] = [];
      n.on("response", async (r) => {
        if (r.status() >= 400) refused.push(`${r.request().method()} ${r.url()} ${r.status()} ${await r.text()}`);
      });
      n.on("console", (m) => refused.push("console: " + m.text()));
      await place(n, "bid");
      // Waits are on what stays on the screen (the books), not on notices, which go.
      try {
        await bookOn(trader, market).getByText(firm).waitFor();
      } catch (e) {
        console.log("refused:", refused.join("\n"));
        console.log("notices of the new firm:", await n.locator(".notices").innerText());
        console.log("its depth:", await bookOn(n, market).innerText());
        console.log("the other firm's depth:", await bookOn(trader, market).innerText());
        throw e;
      }
      await trader.getByRole("radio", { name: "Sell (ask)" }).click();
      await trader.getByLabel("Clean price (%)", { exact: true }).fill("99.5");
      await trader.getByLabel("Quantity (nominal)", { exact: true }).fill("1000000");
      await place(trader, "ask");
      await bookOn(trader, market).getByText(firm).waitFor({ state: "detached" }); // filled
      const res = await fetch(base + "/api/v1/trades", { headers: { Authorization: "Bearer " + (await token(fresh)) } });
      const trades = (await res.json()) as { quantity: number | string }[];
      assert.equal(trades.length, 1, "the new firm has its first trade");
      assert.equal(Number(trades[0]!.quantity), 1000000);
      await nctx.close();
    });

    const [actx, admin] = await newPage(browser);
    await signIn(admin, user(0, "ADMIN"));
    await step("a firm admin disables a user: that user's next request is refused", async () => {
      const viewer = user(0, "VIEWER");
      const [vctx, vp] = await newPage(browser);
      await signIn(vp, viewer);
      const viewerToken = await token(viewer);
      await admin.getByRole("link", { name: "Admin", exact: true }).click();
      const users = admin.getByRole("table", { name: "Users" });
      await confirmed(admin, "Disable " + viewer.email, "Left the desk");
      await users.locator("tr", { hasText: viewer.email }).getByText("disabled", { exact: true }).waitFor();
      const res = await fetch(base + "/api/v1/auth/me", { headers: { Authorization: "Bearer " + viewerToken } });
      assert.equal(res.status, 401, "a disabled user's token is refused");
      await vp.reload();
      await vp.getByLabel("Client ID", { exact: true }).waitFor(); // the screen signed it out
      await vctx.close();
      await admin.getByRole("button", { name: "Enable " + viewer.email }).click();
      await users.locator("tr", { hasText: viewer.email }).getByText("active", { exact: true }).waitFor();
    });

    await step("a firm admin's kill switch takes its orders out of the other firm's depth, and off again", async () => {
      const [a0ctx, a0] = await newPage(browser);
      await signIn(a0, user(0, "TRADER"));
      await openInstrument(a0, bond);
      await a0.getByLabel("Clean price (%)", { exact: true }).fill("98.25");
      await a0.getByLabel("Quantity (nominal)", { exact: true }).fill("1000000");
      await place(a0, "bid");
      const depth = bookOn(trader, market);
      await depth.getByRole("cell", { name: "98.2500" }).first().waitFor();
      await admin.getByRole("link", { name: "Admin", exact: true }).click();
      await confirmed(admin, "Turn kill switch on", "Desk outage drill");
      await admin.getByText("On: the firm's trading is suspended", { exact: false }).waitFor();
      await depth.getByRole("cell", { name: "98.2500" }).first().waitFor({ state: "detached" });
      await admin.screenshot({ path: join(shots, "consoles-kill-switch-on.png") });
      await admin.getByRole("button", { name: "Turn kill switch off" }).click();
      await admin.getByText("Off: the firm trades", { exact: false }).waitFor();
      await consoleView(op, "Audit trail");
      await op.getByLabel("Entity", { exact: true }).fill("kill_switch");
      await op.getByRole("button", { name: "Show entries" }).click();
      await op.getByRole("table", { name: "Audit entries" }).getByRole("cell", { name: "Desk outage drill", exact: true }).waitFor();
      await a0ctx.close();
    });

    await step("every console view, at 1440×900 and 1280×720", async () => {
      const views: [string, (p: Page) => Promise<void>][] = [
        ["markets", async (p) => void (await p.getByRole("table", { name: "Instruments on " + market }).waitFor())],
        [
          "participants",
          async (p) => {
            await p.getByRole("table", { name: "Participants" }).getByRole("link", { name: firm }).click();
            await p.getByRole("table", { name: "Users of " + firm }).locator("tbody tr").first().waitFor();
          },
        ],
        ["settlement", async (p) => void (await p.getByRole("table", { name: "Settlement links" }).waitFor())],
        ["transparency", async (p) => void (await p.getByRole("table", { name: "Deferral bands" }).getByRole("rowheader").first().waitFor())],
        ["audit", async (p) => void (await p.getByRole("table", { name: "Audit entries" }).locator("tbody tr").first().waitFor())],
        ["records", async (p) => void (await p.getByRole("form", { name: "Export order records" }).waitFor())],
        ["reference", async (p) => void (await p.getByRole("form", { name: "Publish news" }).waitFor())],
      ];
      for (const [w, h] of [
        [1440, 900],
        [1280, 720],
      ] as const) {
        await op.setViewportSize({ width: w, height: h });
        await admin.setViewportSize({ width: w, height: h });
        for (const [view, ready] of views) {
          await op.goto(`${base}/#/operator/${view}`);
          await ready(op);
          await op.screenshot({ path: join(shots, `console-operator-${view}-${w}x${h}.png`) });
        }
        await admin.getByRole("link", { name: "Admin", exact: true }).click();
        await admin.getByRole("table", { name: "Users" }).locator("tbody tr").first().waitFor();
        await admin.screenshot({ path: join(shots, `console-admin-${w}x${h}.png`) });
      }
    });

    await step("the operator replays the book and exports the day's order records", async () => {
      await consoleView(op, "Records and replay");
      const form = op.getByRole("form", { name: "Replay a book" });
      await form.getByLabel("Replay instrument", { exact: true }).selectOption({ label: bond });
      await form.getByLabel("Replay market", { exact: true }).selectOption({ label: market });
      await op.getByRole("button", { name: "Replay", exact: true }).click();
      await op.getByRole("status").filter({ hasText: /rebuilt from \d+ records/ }).waitFor();
      const download = op.waitForEvent("download");
      await op.getByRole("button", { name: "Download order records" }).click();
      const file = await download;
      assert.match(file.suggestedFilename(), /^order-records-\d{4}-\d\d-\d\d\.csv$/);
    });

    await actx.close();
    await tctx.close();
    await octx.close();
  } finally {
    await browser.close();
  }
}

main().then(
  () => console.log("console browser tests passed"),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
