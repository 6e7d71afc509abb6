// Browser test of the trading screen on the live demo market: the venue
// runs `serve --demo` with its simulated firms (Meridian Liquidity Partners,
// Alpine Rates Trading) resting offers, trading, publishing news and
// answering RFQs, and two demo firms' traders use the screen side by side,
// each in its own browser context. cmd/bondvenue's TestBrowserLiveDemo
// starts the venue (with a short BONDVENUE_DEMO_MARKET_TICK) and runs this;
// by hand, against `serve --demo` (the market on):
//
//   BASE_URL=http://127.0.0.1:8080 CREDENTIALS=bondvenue-data/demo-credentials.json \
//     node web/e2e/dist/live.js
//
// The simulated firms act at random: nothing here expects a price of
// theirs. It waits, within bounds, for prices, trades and news to be there,
// and identifies its own records by values only it uses (quantities of
// odd thousands, another on each run). It prints how long the market took to
// show them (the first two-way price, the first trade on the tape, the
// RFQ's answer).
//
// Environment: BASE_URL, CREDENTIALS (the demo credentials file), CHROMIUM
// (default /usr/bin/chromium), SCREENSHOTS (folder for the screenshots of
// each view; default web/e2e/screenshots/live), VENUE_READY_AT (the
// venue's start, in milliseconds since the epoch: timings are printed from
// it too when set).
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { type Page } from "playwright-core";
import { bookOn, creds, firmName, launch, newPage, screenshots, settlementKnown, signIn, signOut, step, timeout, user } from "./common.js";

const shots = screenshots("web/e2e/screenshots/live");
/** liveWait bounds a wait on the simulated firms: prices, trades, news. */
const liveWait = 60_000;
/** rfqWait bounds a wait for a simulated dealer's answer (it answers within six seconds). */
const rfqWait = 20_000;

const cont = "bondvenue Continuous";
const dealers = ["Meridian Liquidity Partners Ltd", "Alpine Rates Trading AG"] as const;
/** The bond firm A bids for; its market maker is a simulated firm. */
const orderBond = "DBR 2.30 15/02/2033";
/** The bond firm A asks quotes for. */
const rfqBond = "FRTR 3.00 25/11/2034";
/**
 * Quantities no simulated firm uses (they deal in whole millions), and
 * another on each run (a run by hand may follow another on the same
 * venue): firm A's records are found by them.
 */
const salt = 1 + (Date.now() % 899);
const orderQty = 1_000_000 + salt * 1000;
const rfqQtys = [2_000_000 + salt * 1000, 2_001_000 + salt * 1000];

const started = Date.now();
const readyAt = Number(process.env.VENUE_READY_AT ?? "") || 0;
const timings: string[] = [];

/** timing prints how long after the journey's start (and the venue's) something showed. */
function timing(what: string): void {
  const now = Date.now();
  const line = `${what}: ${now - started} ms into the journey` + (readyAt ? `, ${now - readyAt} ms after the venue was ready` : "");
  console.log("     " + line);
  timings.push(line);
}

async function openInstrument(page: Page, name: string): Promise<void> {
  await page.getByRole("link", { name: "Market", exact: true }).click();
  await page.getByRole("searchbox").fill(name);
  await page.getByRole("table", { name: "Instruments" }).getByRole("link", { name, exact: true }).click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
}

/** shot captures the page as a view, with the notices of earlier steps dismissed (they stack over the right-hand column). */
async function shot(page: Page, name: string): Promise<void> {
  for (const d of await page.locator(".notices").getByRole("button", { name: "Dismiss" }).all()) {
    await d.click({ timeout: 1000 }).catch(() => {}); // it may have expired meanwhile
  }
  await page.screenshot({ path: join(shots, name + ".png") });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** until polls probe until it returns a value, for at most ms. */
async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  let err: unknown = null;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (e) {
      err = e;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms` + (err ? ` (last error: ${(err as Error).message})` : ""));
    await sleep(200);
  }
}

/** fmtQty writes a nominal as the screen does: 1,234,000. */
function fmtQty(n: number): string {
  return n.toLocaleString("en-US");
}

/** ticks reads a price of the screen ("98.1500") in ten-thousandths, exactly. */
function ticks(price: string): number {
  const m = /^(\d+)(?:\.(\d{1,4}))?$/.exec(price.trim());
  assert.ok(m, `a price: ${JSON.stringify(price)}`);
  return Number(m[1]) * 10_000 + Number((m[2] ?? "").padEnd(4, "0"));
}

/** price writes ten-thousandths as the screen shows a price of precision 4. */
function price(t: number): string {
  return (t / 10_000).toFixed(4);
}

interface GridRow {
  name: string;
  bid: string | null;
  ask: string | null;
  last: string;
}

/** gridRows reads the market grid: each bond's best bid and ask (null when none) and last price. */
async function gridRows(p: Page): Promise<GridRow[]> {
  return p.locator('table[aria-label="Instruments"] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      name: tr.querySelector("th a")?.textContent?.trim() ?? "",
      bid: tr.querySelector('td[aria-label^="Best bid "] button')?.textContent?.trim() ?? null,
      ask: tr.querySelector('td[aria-label^="Best ask "] button')?.textContent?.trim() ?? null,
      last: tr.querySelector("td:last-child")?.textContent?.trim() ?? "",
    })),
  );
}

/** acked clicks a button and returns once the venue answered its request (method on path) with 2xx. */
async function acked(p: Page, method: string, path: string, button: string): Promise<void> {
  const [res] = await Promise.all([
    p.waitForResponse((r) => r.request().method() === method && new URL(r.url()).pathname.startsWith("/api/v1/" + path)),
    p.getByRole("button", { name: button, exact: true }).click(),
  ]);
  assert.ok(res.status() < 300, `${button}: ${res.status()} ${await res.text()}`);
}

async function main(): Promise<void> {
  const browser = await launch();
  try {
    const [ctxA, a] = await newPage(browser, { timezoneId: "Europe/Berlin" });
    const [ctxB, b] = await newPage(browser, { timezoneId: "America/New_York" });
    await step("two firms' traders sign in side by side", async () => {
      await signIn(a, user(0, "TRADER"), { submit: "button" });
      await signIn(b, user(1, "TRADER"), { submit: "button" });
      assert.equal((await a.locator(".firm").innerText()).trim(), firmName(0));
      assert.equal((await b.locator(".firm").innerText()).trim(), firmName(1));
    });

    await step("the market grid shows two-way prices from the simulated firms", async () => {
      const row = await until("a bond with a best bid and a best ask on firm A's grid", liveWait, async () =>
        (await gridRows(a)).find((r) => r.bid && r.ask),
      );
      timing(`first two-way price (${row.name}: ${row.bid} / ${row.ask})`);
      await until("a bond with a best bid and a best ask on firm B's grid", liveWait, async () => (await gridRows(b)).find((r) => r.bid && r.ask));
      const two = (await gridRows(a)).filter((r) => r.bid && r.ask).length;
      console.log(`     ${two} bonds two-way on firm A's grid`);
    });

    let traded = "";
    await step("trades print: Last in the grid, the tape and a candle on the chart", async () => {
      // The chart shows the market that allows partial fills: a bond traded there.
      await a.getByRole("combobox", { name: "Market", exact: true }).selectOption({ label: cont });
      // A government bond: the simulated firms' sizes in them are public at once, while a
      // corporate's of 1 m and more waits 15 minutes for the public tape (the deferral table).
      const row = await until(`a government bond with a last price on ${cont}`, liveWait, async () =>
        (await gridRows(a)).find((r) => r.last !== "" && r.last !== "–" && /^(DBR|FRTR|BTPS|SPGB|RAGB|NETHER|EU) /.test(r.name)),
      );
      traded = row.name;
      timing(`first last price in the grid (${row.name}: ${row.last})`);
      await shot(a, "market");
      await a.getByRole("table", { name: "Instruments" }).getByRole("link", { name: traded, exact: true }).click();
      await a.getByRole("heading", { level: 1, name: traded }).waitFor();
      const tape = a.getByRole("table", { name: "Trade tape" });
      await tape.locator("tbody tr time").first().waitFor({ timeout: liveWait });
      timing(`first trade on the tape (${traded}: ${(await tape.locator("tbody tr").first().innerText()).replace(/\s+/g, " ")})`);
      // Depth of both sides on the instrument page, the simulated firms named as any firm is.
      await bookOn(a, cont).locator("td.bid button.level").first().waitFor({ timeout: liveWait });
      await bookOn(a, cont).locator("td.ask button.level").first().waitFor({ timeout: liveWait });
      await bookOn(a, cont).locator("td.who", { hasText: new RegExp(dealers.join("|")) }).first().waitFor({ timeout: liveWait });
      // A candle: the chart has drawn its canvas and no longer says it has no trade.
      await until(`a candle on ${traded}'s chart`, liveWait, () =>
        a.locator(".chart").evaluate((el) => !!el.querySelector(".chart-box canvas") && !(el.querySelector(".segmented .muted")?.textContent ?? "").includes("No trades")),
      );
      timing("first candle on the chart");
      await shot(a, "instrument");
    });

    await step("news from the market desk appears", async () => {
      await a.getByRole("link", { name: "News", exact: true }).click();
      await a.locator("ol.news article", { hasText: "bondvenue market desk" }).first().waitFor({ timeout: liveWait });
      timing("first market note in the news");
      await shot(a, "news");
    });

    // Firm A bids on the live book, away from the best; firm B's depth follows.
    const bookA = bookOn(a, cont);
    const bookB = bookOn(b, cont);
    let placed = "";
    let bidPx = 0;
    await step("firm A clicks an ask of the live book: the ticket fills to buy at its price", async () => {
      await openInstrument(b, orderBond);
      await openInstrument(a, orderBond);
      await bookA.locator("td.ask button.level").first().waitFor({ timeout: liveWait });
      // The level may move between reading and clicking it: then again.
      let ok = false;
      for (let i = 0; i < 5 && !ok; i++) {
        const level = bookA.locator("td.ask button.level").first();
        const shown = (await level.innerText()).trim();
        await level.click();
        const deadline = Date.now() + 2000;
        while (!ok && Date.now() < deadline) {
          const v = await a.getByLabel("Clean price (%)", { exact: true }).inputValue();
          ok = v !== "" && ticks(v) === ticks(shown);
          if (!ok) await sleep(100);
        }
      }
      assert.ok(ok, "the ticket takes the clicked ask's price");
      assert.equal(await a.getByRole("radio", { name: "Buy (bid)" }).getAttribute("aria-checked"), "true", "an ask clicked is bought");
      assert.match(await a.getByLabel("Quantity (nominal)", { exact: true }).inputValue(), /^[1-9]\d*$/, "its quantity");
      const market = a.getByRole("combobox", { name: "Market", exact: true });
      assert.equal(await market.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent), cont, "on the clicked level's market");
    });

    await step("firm A places a bid below the best: in its blotter and in firm B's depth", async () => {
      await bookA.locator("td.bid button.level").first().waitFor({ timeout: liveWait });
      const best = ticks(await bookA.locator("td.bid button.level").first().innerText());
      // Three quarters of a point under the best bid: it crosses nothing.
      bidPx = best - 7_500;
      await a.getByLabel("Clean price (%)", { exact: true }).fill(price(bidPx));
      await a.getByLabel("Quantity (nominal)", { exact: true }).fill(String(orderQty));
      await acked(a, "POST", "participant/offers", "Place bid");
      placed = `Buy ${fmtQty(orderQty)} ${orderBond} at ${price(bidPx)}`;
      const mine = bookB.locator("tbody tr", { hasText: fmtQty(orderQty) });
      await mine.getByRole("cell", { name: price(bidPx), exact: true }).waitFor();
      await mine.getByText(firmName(0)).waitFor();
      await shot(b, "depth-firm-b");
      await a.getByRole("link", { name: "Blotter", exact: true }).click();
      await a.getByRole("button", { name: "Cancel " + placed, exact: true }).waitFor();
    });

    await step("firm A amends its bid lower and cancels it; firm B's depth follows", async () => {
      const lower = bidPx - 2_500;
      await a.getByRole("button", { name: "Amend " + placed, exact: true }).click();
      await a.getByLabel("New price for " + placed, { exact: true }).fill(price(lower));
      await acked(a, "PUT", "participant/offers", "Save " + placed);
      const amended = `Buy ${fmtQty(orderQty)} ${orderBond} at ${price(lower)}`;
      await a.getByRole("button", { name: "Cancel " + amended, exact: true }).waitFor();
      const mine = bookB.locator("tbody tr", { hasText: fmtQty(orderQty) });
      await mine.getByRole("cell", { name: price(lower), exact: true }).waitFor();
      await mine.getByRole("cell", { name: price(bidPx), exact: true }).waitFor({ state: "detached" });
      await acked(a, "DELETE", "participant/offers", "Cancel " + amended);
      await mine.waitFor({ state: "detached" });
    });

    await step("firm A improves the ask, firm B buys at it: each is told of its fill", async () => {
      await openInstrument(a, orderBond);
      await bookA.locator("td.ask button.level").first().waitFor({ timeout: liveWait });
      await bookA.locator("td.bid button.level").first().waitFor({ timeout: liveWait });
      const ask = ticks(await bookA.locator("td.ask button.level").first().innerText());
      const bid = ticks(await bookA.locator("td.bid button.level").first().innerText());
      // One tick inside the spread when there is room, else at the best ask.
      const px = ask - 1 > bid ? ask - 1 : ask;
      await a.getByRole("radio", { name: "Sell (ask)" }).click();
      await a.getByLabel("Clean price (%)", { exact: true }).fill(price(px));
      await a.getByLabel("Quantity (nominal)", { exact: true }).fill(String(orderQty));
      await acked(a, "POST", "participant/offers", "Place ask");
      await b.getByRole("radio", { name: "Buy (bid)" }).click();
      await b.getByLabel("Clean price (%)", { exact: true }).fill(price(px));
      await b.getByLabel("Quantity (nominal)", { exact: true }).fill(String(orderQty));
      await acked(b, "POST", "participant/offers", "Place bid");
      // A buy at the price fills at once, against firm A's ask or a better one of the simulated firms.
      // Notices name the bond as a desk does: the maturity's year only.
      const short = orderBond.replace(/\s\d{1,2}\/\d{1,2}\/(\d{4})$/, " $1");
      const bought = b.locator(".notice", { hasText: "Bought" }).filter({ hasText: short });
      await bought.first().waitFor();
      await b.getByRole("link", { name: "Blotter", exact: true }).click();
      await b.getByRole("table", { name: "My trades" }).locator("tr", { hasText: orderBond }).first().waitFor();
      await shot(b, "blotter-firm-b");
      // Firm A's ask: sold to firm B (its notice says so), or still open when a simulated ask was better.
      const sold = a.locator(".notice", { hasText: "Sold" }).filter({ hasText: short });
      await a.getByRole("link", { name: "Blotter", exact: true }).click();
      const left = a.getByRole("button", { name: new RegExp(`^Cancel Sell ${fmtQty(orderQty)} ${orderBond}`) });
      await sold.or(left).first().waitFor();
      if (await left.count()) {
        console.log("     a simulated ask was better: firm B bought from it; firm A cancels its ask");
        await left.first().click();
        await left.waitFor({ state: "detached" });
      } else {
        console.log("     firm B bought firm A's ask");
      }
    });

    await step("firm A asks a simulated dealer for a quote: answered within seconds", async () => {
      let outcome = "";
      for (const [i, dealer] of dealers.entries()) {
        const qty = rfqQtys[i]!;
        await a.getByRole("link", { name: "RFQ", exact: true }).click();
        const select = a.getByLabel("Instrument", { exact: true });
        await select.selectOption((await select.locator("option", { hasText: rfqBond }).getAttribute("value")) ?? "");
        await a.getByRole("radio", { name: "Buy", exact: true }).click();
        await a.getByLabel("RFQ quantity (nominal)", { exact: true }).fill(String(qty));
        // The dealers offered are the firm's counterparties, the simulated firms among them.
        for (const d of dealers) await a.getByRole("group", { name: "Dealers" }).getByLabel(d, { exact: true }).setChecked(d === dealer);
        await acked(a, "POST", "participant/rfq", "Send request");
        const sent = Date.now();
        const title = `Buy ${fmtQty(qty)} ${rfqBond}`;
        const request = a.getByRole("article", { name: "Request " + title, exact: true });
        const accept = request.getByRole("button", { name: "Accept quote from " + dealer, exact: true });
        const declined = request.locator("header .outcome", { hasText: "declined" });
        await accept.or(declined).first().waitFor({ timeout: rfqWait });
        const answer = Date.now() - sent;
        if (await declined.count()) {
          timing(`RFQ to ${dealer} declined after ${answer} ms`);
          outcome = "declined";
          continue; // the other dealer may quote
        }
        const quoted = (await request.locator("tbody tr", { hasText: dealer }).locator("td").nth(1).innerText()).trim();
        timing(`RFQ to ${dealer} quoted ${quoted} after ${answer} ms`);
        await shot(a, "rfq");
        await accept.click();
        await a.getByText("Quote accepted: trade done").last().waitFor();
        await request.locator("header .outcome").getByText(`traded ${fmtQty(qty)} at ${quoted} with ${dealer}`).waitFor();
        // The trade: in firm A's blotter, and on the bond's tape.
        await a.getByRole("link", { name: "Blotter", exact: true }).click();
        const row = a.getByRole("table", { name: "My trades" }).locator("tbody tr").filter({ hasText: rfqBond }).filter({ hasText: fmtQty(qty) });
        await row.first().waitFor();
        const cells = await row.first().locator("td").allInnerTexts();
        assert.equal(cells[2], "Bought");
        assert.equal(cells[4], dealer);
        assert.equal(cells[5], quoted);
        await shot(a, "blotter");
        await openInstrument(a, rfqBond);
        await a.getByRole("table", { name: "Trade tape" }).locator("tbody tr", { hasText: fmtQty(qty) }).getByRole("cell", { name: quoted, exact: true }).waitFor();
        outcome = "traded";
        break;
      }
      if (outcome === "declined") {
        // Both declined (each does one time in five): the accept is not exercised this run.
        console.log("     both simulated dealers declined: no quote to accept this run");
        await shot(a, "rfq");
        await a.getByRole("link", { name: "Blotter", exact: true }).click();
        await a.getByRole("table", { name: "My trades" }).waitFor();
        await shot(a, "blotter");
      }
    });

    await step("the bond calculator on the live instrument page", async () => {
      await openInstrument(a, traded || orderBond);
      const calc = a.locator(".calc");
      const px = a.getByLabel("Calculator clean price (%)", { exact: true });
      await settlementKnown(a);
      await px.fill("99");
      await px.press("Enter");
      const deadline = Date.now() + timeout;
      while (!/%$/.test((await calc.locator(".preview dd").nth(3).innerText()).trim())) {
        assert.ok(Date.now() < deadline, "the calculator's yield");
        await sleep(100);
      }
      await calc.scrollIntoViewIfNeeded();
      await shot(a, "calculator");
    });

    await step("firm A's admin and the operator on the live market", async () => {
      const [ctx, admin] = await newPage(browser);
      await signIn(admin, user(0, "ADMIN"), { submit: "button" });
      await admin.getByRole("link", { name: "Admin", exact: true }).click();
      const users = admin.getByRole("table", { name: "Users" });
      await users.getByText(user(0, "TRADER").email).waitFor();
      // Disable the firm's viewer and enable it again, with the market live around it.
      const viewerEmail = user(0, "VIEWER").email;
      await admin.getByRole("button", { name: "Disable " + viewerEmail }).click();
      await users.locator("tr", { hasText: viewerEmail }).getByText("disabled").waitFor();
      await admin.getByRole("button", { name: "Enable " + viewerEmail }).click();
      await users.locator("tr", { hasText: viewerEmail }).getByText("active").waitFor();
      await shot(admin, "admin");
      await signOut(admin);
      await ctx.close();
      const [octx, op] = await newPage(browser);
      await signIn(op, creds.operator, { submit: "button" });
      await op.getByRole("link", { name: "Blotter", exact: true }).click();
      // The operator reads both sides of every trade, the simulated firms' among them.
      const trades = op.getByRole("table", { name: "Trades" }).locator("tbody tr");
      await trades.filter({ hasText: dealers[0] }).filter({ hasText: dealers[1] }).first().waitFor({ timeout: liveWait });
      await shot(op, "operator");
      await signOut(op);
      await octx.close();
    });

    await step("sign-out", async () => {
      for (const p of [a, b]) await signOut(p);
    });
    await ctxA.close();
    await ctxB.close();
  } finally {
    await browser.close();
  }
}

main().then(
  () => {
    console.log("timings:");
    for (const t of timings) console.log("     " + t);
    console.log(`live demo browser tests passed in ${Date.now() - started} ms`);
  },
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
