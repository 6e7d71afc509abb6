// Browser checks of the trading screens' defects a new user met on the
// demo: each screen's layout at 1024×768, 1280×720 and 1440×900 (nothing
// overflows its card, nothing overlaps), the market grid's best bid and
// ask from two markets, a halt shown live in the ticket, the depth and
// the grid, a kill switch told to the trader, a tape whose trades are
// deferred and the chart's choice of market, a dealer's quote far from
// the market, and a portfolio list pasted from a spreadsheet with its
// dealers' answers and the Lists tab's count. cmd/bondvenue's
// TestBrowserScreens starts the venue (the quiet demo) and runs this; by
// hand, against `serve --demo --demo-market=false`:
//
//   BASE_URL=http://127.0.0.1:8080 CREDENTIALS=bondvenue-data/demo-credentials.json \
//     node web/e2e/dist/screens.js
//
// Environment: BASE_URL, CREDENTIALS, CHROMIUM, SCREENSHOTS (default
// web/e2e/screenshots/screens).
import { strict as assert } from "node:assert";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type UserCred, base, creds, firmName, launch, newPage, screenshots, signIn, step, timeout, user } from "./common.js";
import { layoutProblems, viewports } from "./layout.js";

const shots = screenshots("web/e2e/screenshots/screens");
const cont = "bondvenue Continuous";
const aon = "bondvenue Continuous All-or-None";
const rfqMarket = "bondvenue RFQ";
/** The bond whose best bid and ask rest on two markets, then halted. */
const crossBond = "NETHER 2.50 15/07/2033";
/** The bond traded large enough for the public tape to defer it (a sovereign, 6 m: price after 15 minutes). */
const deferredBond = "RAGB 2.90 20/02/2033";
/** The bond traded on the all-or-none book only. */
const aonBond = "BTPS 3.85 01/02/2035";

type Json = Record<string, unknown>;

async function token(u: UserCred | { client_id: string; client_secret: string }): Promise<string> {
  const res = await fetch(base + "/api/v1/auth/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ grant_type: "client_credentials", client_id: u.client_id, client_secret: u.client_secret }),
  });
  assert.equal(res.status, 200, "token");
  return ((await res.json()) as { access_token: string }).access_token;
}

/** rest calls the venue's REST interface as the bearer of tok; a status other than 200 fails the journey. */
async function rest<T = Json>(tok: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(base + "/api/v1" + path, {
    method,
    headers: { Authorization: "Bearer " + tok, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, `${method} ${path}: ${text}`);
  return JSON.parse(text) as T;
}

async function openInstrument(page: Page, name: string): Promise<void> {
  await page.getByRole("link", { name: "Market", exact: true }).click();
  await page.getByRole("searchbox").fill(name);
  await page.getByRole("table", { name: "Instruments" }).getByRole("link", { name, exact: true }).click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
}

/** fits fails with every layout problem of the view shown, after capturing it. */
async function fits(page: Page, view: string, size: { width: number; height: number }): Promise<void> {
  await page.screenshot({ path: join(shots, `${view}-${size.width}x${size.height}.png`), fullPage: true });
  const problems = await layoutProblems(page);
  assert.deepEqual(problems, [], `${view} at ${size.width}×${size.height}`);
}

async function main(): Promise<void> {
  const browser = await launch();
  try {
    const op = await token(creds.operator);
    const [ta, tb] = [await token(user(0, "TRADER")), await token(user(1, "TRADER"))];
    const markets = await rest<{ id: string; name: string }[]>(op, "GET", "/markets");
    const marketId = (name: string) => markets.find((m) => m.name === name)!.id;
    const instruments = await rest<{ id: string; name: string; isin: string }[]>(op, "GET", "/instruments?limit=1000");
    const insId = (name: string) => instruments.find((i) => i.name === name)!.id;
    const accountOf = async (tok: string) => (await rest<{ accounts: { id: string }[] }>(tok, "GET", "/auth/me")).accounts[0]!.id;
    const [accA, accB] = [await accountOf(ta), await accountOf(tb)];
    const firmB = creds.participants[1]!.id;
    const offer = (tok: string, account: string, name: string, market: string, direction: string, price: string, quantity: string) =>
      rest(tok, "POST", "/participant/offers", { instrument_id: insId(name), market_id: marketId(market), account_id: account, direction, price_per_unit: price, quantity, validity: "gtc" });

    // The market: a bid on the continuous book above an ask on the all-or-none book; a deferred trade.
    await offer(ta, accA, crossBond, cont, "bid", "98.94", "1003000");
    await offer(tb, accB, crossBond, aon, "ask", "98.93", "1000000");
    // Both sides of the continuous book named, a few levels deep: the depth at its widest.
    for (const [n, price] of ["99.10", "99.15", "99.20"].entries()) await offer(tb, accB, crossBond, cont, "ask", price, String(2_000_000 + n * 1000));
    for (const [n, price] of ["98.80", "98.70"].entries()) await offer(ta, accA, crossBond, cont, "bid", price, String(12_000_000 + n * 1000));
    await offer(ta, accA, deferredBond, cont, "bid", "99.00", "6000000");
    await offer(tb, accB, deferredBond, cont, "ask", "99.00", "6000000");
    await offer(tb, accB, aonBond, aon, "ask", "97.00", "1000000");
    await offer(ta, accA, aonBond, aon, "bid", "97.00", "1000000");

    const [ctxA, a] = await newPage(browser);
    const [ctxB, b] = await newPage(browser);
    const [ctxO, o] = await newPage(browser);
    await signIn(a, user(0, "TRADER"));
    await signIn(b, user(1, "TRADER"));
    await signIn(o, creds.operator);

    await step("the grid marks a best bid and ask from two markets with their markets, not as one market's spread", async () => {
      const row = a.getByRole("table", { name: "Instruments" }).locator("tbody tr").filter({ hasText: crossBond });
      await row.getByRole("cell", { name: `Spread ${crossBond}` }).getByText("across markets").waitFor();
      await row.getByRole("cell", { name: `Best bid ${crossBond}` }).getByText(cont, { exact: true }).waitFor();
      await row.getByRole("cell", { name: `Best ask ${crossBond}` }).getByText(aon, { exact: true }).waitFor();
      assert.equal((await row.getByRole("cell", { name: `Mid ${crossBond}` }).innerText()).trim(), "–", "no mid across two markets");
    });

    await step("each screen fits its window: nothing overflows its card, nothing overlaps", async () => {
      for (const size of viewports) {
        for (const p of [a, o]) await p.setViewportSize(size);
        await a.getByRole("link", { name: "Market", exact: true }).click();
        await a.getByRole("table", { name: "Instruments" }).waitFor();
        await fits(a, "market", size);
        await openInstrument(a, crossBond);
        await a.getByRole("table", { name: "Depth on " + cont, exact: true }).getByText("98.9400").first().waitFor();
        await a.locator(".chart-box canvas").first().waitFor();
        await fits(a, "instrument", size);
        await a.getByRole("link", { name: "Blotter", exact: true }).click();
        await a.getByRole("table", { name: "My trades" }).getByText(deferredBond).first().waitFor();
        await fits(a, "blotter", size);
        const allocate = await a.getByRole("table", { name: "My trades" }).getByRole("button", { name: /^Allocate/ }).first().boundingBox();
        assert.ok(allocate && allocate.x + allocate.width <= size.width, `Allocate (${JSON.stringify(allocate)}) in the window`);
        await o.getByRole("link", { name: "Blotter", exact: true }).click();
        await o.getByRole("table", { name: "Trades", exact: true }).getByText(deferredBond).first().waitFor();
        await fits(o, "operator-blotter", size);
      }
      for (const p of [a, o]) await p.setViewportSize({ width: 1280, height: 800 });
    });

    await step("a tape whose trades are deferred says so, and when the firm's own is due; the chart's market is named and chosen", async () => {
      await openInstrument(a, deferredBond);
      const tape = a.getByRole("region", { name: "Trade tape" });
      await tape.getByText(/Your trade of .* is deferred under the venue's transparency rules: on the public tape from /).waitFor();
      await tape.getByText("No trade published yet.").waitFor();
      const chart = a.getByRole("combobox", { name: "Chart market" });
      // Every market the bond is listed on: the demo's first bonds are on its day session too.
      const options = await chart.locator("option").allInnerTexts();
      for (const m of [aon, cont, rfqMarket]) assert.ok(options.includes(m), `the chart offers ${m}: ${options.join(", ")}`);
      assert.ok(options.every((m) => [aon, cont, rfqMarket, "bondvenue Day Session"].includes(m)), `the chart offers only the bond's markets: ${options.join(", ")}`);
      assert.equal(await chart.inputValue(), marketId(cont));
      await a.getByRole("img", { name: `OHLC chart, 1m bars on ${cont}` }).waitFor();
      await a.getByText(`No trades on ${cont}`).waitFor({ state: "detached" }); // members see the trade on the chart
      await chart.selectOption({ label: aon });
      await a.getByRole("img", { name: `OHLC chart, 1m bars on ${aon}` }).waitFor();
      await a.getByText(`No trades on ${aon} in this interval's history`).waitFor();
      // A bond traded on the all-or-none book only: its chart opens there, with the trade.
      await openInstrument(a, aonBond);
      await a.getByRole("region", { name: "Trade tape" }).getByRole("cell", { name: aon, exact: true }).waitFor();
      assert.equal(await a.getByRole("combobox", { name: "Chart market" }).inputValue(), marketId(aon));
      await a.getByRole("img", { name: `OHLC chart, 1m bars on ${aon}` }).waitFor();
      await a.locator(".chart-box canvas").first().waitFor();
      await a.getByText(`No trades on ${aon}`).waitFor({ state: "detached" });
    });

    await step("a halt disables the ticket's Place with its reason, marks the depth and the grid, live", async () => {
      await openInstrument(a, crossBond);
      const place = a.getByRole("button", { name: "Place bid" });
      assert.ok(await place.isEnabled(), "Place is enabled before the halt");
      const halt = `/admin/markets/${marketId(cont)}/instruments/${insId(crossBond)}/halt`;
      await rest(op, "PUT", halt, { halted: true, reason: "Issuer announcement pending" });
      await a.getByRole("alert").filter({ hasText: `Trading halted on ${cont}: Issuer announcement pending` }).waitFor();
      await a.waitForFunction(() => (document.querySelector("button[aria-label='Place bid']") as HTMLButtonElement | null)?.disabled === true);
      await a.getByRole("region", { name: "Depth · " + cont }).getByText("Halted: Issuer announcement pending").waitFor();
      await a.getByRole("table", { name: "Depth on " + cont, exact: true }).getByText("halted").first().waitFor();
      await a.screenshot({ path: join(shots, "halted-instrument.png") });
      await a.getByRole("link", { name: "Market", exact: true }).click();
      const row = a.getByRole("table", { name: "Instruments" }).locator("tbody tr").filter({ hasText: crossBond });
      await row.getByText(`halted on ${cont}`).waitFor();
      await rest(op, "PUT", halt, { halted: false, reason: "Announcement out" });
      await row.getByText(`halted on ${cont}`).waitFor({ state: "detached" });
      await openInstrument(a, crossBond);
      await a.waitForFunction(() => (document.querySelector("button[aria-label='Place bid']") as HTMLButtonElement | null)?.disabled === false);
    });

    await step("a dealer quoting sees the market beside its price and confirms a quote far from it", async () => {
      const rfq = await rest<{ id: string }>(ta, "POST", "/participant/rfq", {
        instrument_id: insId(deferredBond), market_id: marketId(rfqMarket), account_id: accA, direction: "bid", quantity: "2000000", counterparties: [firmB],
        validity: "gtd", valid_until: new Date(Date.now() + 10 * 60_000).toISOString(),
      });
      await b.getByRole("link", { name: "RFQ", exact: true }).click();
      const title = `${firmName(0)} buys 2,000,000 ${deferredBond}`;
      const beside = b.locator(`dl[aria-label="Market for ${title}"] dd`);
      await b.locator(`dl[aria-label="Market for ${title}"]`).getByText("99.0000").waitFor(); // the last trade
      assert.ok((await beside.count()) === 4, "bid, ask, mid and last beside the quote");
      await b.getByLabel("Quote price for " + title).fill("103.00");
      await b.getByRole("button", { name: "Send quote for " + title }).click();
      const confirm = b.getByRole("alert", { name: "Confirm the quote for " + title });
      await confirm.getByText("103.0000 is 4.0000 above the last trade 99.0000, more than 1% away: send it?").waitFor();
      await b.screenshot({ path: join(shots, "far-quote.png") });
      await confirm.getByRole("button", { name: "Send anyway" }).click();
      await b.getByText("Quote sent").last().waitFor();
      await b.locator(`tr[data-rfq]`, { hasText: deferredBond }).getByText("quoted 103.0000").waitFor();
      // The requester takes it: an RFQ trade, on the chart of the RFQ market.
      const full = await rest<{ matched_offers: { id: string }[] }>(ta, "GET", `/participant/rfq/${rfq.id}`);
      await rest(ta, "PUT", `/participant/offers/${full.matched_offers[0]!.id}/accept`);
      await openInstrument(a, deferredBond);
      await a.getByRole("combobox", { name: "Chart market" }).selectOption({ label: rfqMarket });
      await a.getByRole("img", { name: `OHLC chart, 1m bars on ${rfqMarket}` }).waitFor();
      await a.locator(".chart-box canvas").first().waitFor();
      await a.getByText(`No trades on ${rfqMarket}`).waitFor({ state: "detached" });
    });

    await step("a list pastes from a spreadsheet, counts on the dealer's Lists tab, and shows each dealer's answer", async () => {
      await a.getByRole("link", { name: "Lists", exact: true }).click();
      const lines = a.getByLabel("Lines (ISIN, buy or sell, nominal — one per line)");
      const example = (await lines.getAttribute("placeholder")) ?? "";
      const listed = instruments.map((i) => i.isin);
      assert.ok(example.split("\n").every((l) => listed.includes(l.split(/[,\t]/)[0]!.trim())), `the example's bonds are listed: ${example}`);
      const isin = instruments.find((i) => i.name === deferredBond)!.isin;
      await lines.fill(`ISIN\tSide\tNominal\n${isin}\tBuy\t2,000,000\n${isin}\tSell\t1,000,000\t`);
      await a.getByText("2 lines").waitFor();
      const dealers = a.getByRole("region", { name: "Request a list" }).getByRole("group", { name: "Dealers" });
      await dealers.getByLabel(firmName(1), { exact: true }).check();
      await dealers.getByLabel(firmName(2), { exact: true }).check();
      await a.getByRole("button", { name: "Send list" }).click();
      await a.getByText("List sent").last().waitFor();
      const mine = a.getByRole("region", { name: "My lists" }).locator("article").first();
      await mine.getByText(`${firmName(1)}: no answer`).waitFor();
      await mine.getByText(`${firmName(2)}: no answer`).waitFor();

      await b.getByRole("link", { name: "Market", exact: true }).click();
      const tab = b.getByRole("link", { name: "Lists", exact: true });
      await tab.locator(".badge").getByText("1", { exact: true }).waitFor();
      assert.equal((await b.locator("#lists-inbox").textContent())?.trim(), "1 list awaits your answer");
      await tab.click();
      const title = `${firmName(0)}: list of 2`;
      await b.getByRole("button", { name: "Decline " + title }).click();
      await b.getByText("List declined").last().waitFor();
      await tab.locator(".badge").waitFor({ state: "detached" });
      await mine.getByText(`${firmName(1)}: declined`).waitFor();
      await mine.getByText(`${firmName(2)}: no answer`).waitFor();
      await a.screenshot({ path: join(shots, "list-dealers.png") });
    });

    await step("the kill switch tells the trader why its orders went, and when it may trade again", async () => {
      const kill = `/admin/participants/${firmB}/kill-switch`;
      const on = await rest<{ cancelled: number }>(op, "PUT", kill, { enabled: true, reason: "runaway algorithm" });
      assert.ok(on.cancelled >= 1, `the switch cancelled the firm's orders (${on.cancelled})`);
      await b.locator(".notice", { hasText: `Your firm's kill switch is on: ${on.cancelled} open order${on.cancelled === 1 ? "" : "s"} cancelled` }).waitFor();
      await b.screenshot({ path: join(shots, "kill-switch.png") });
      await rest(op, "PUT", kill, { enabled: false, reason: "desk back" });
      await b.locator(".notice", { hasText: "Your firm's kill switch is off: you may trade again" }).waitFor();
      assert.equal(await a.locator(".notice", { hasText: "kill switch" }).count(), 0, "another firm is told nothing");
    });

    await ctxA.close();
    await ctxB.close();
    await ctxO.close();
  } finally {
    await browser.close();
  }
}

main().then(
  () => console.log("browser checks of the screens passed"),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
void timeout;
