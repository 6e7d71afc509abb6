// Browser tests of what a trader expected on the screen and first found
// missing: the blotter's dates, filters, CSV export and "Cancel all"; the
// ticket's time in force and market orders; the RFQ's settlement date,
// limit and executable option, a dealer's quote validity and the
// request's execution record; the public tape's own page; news alerts.
// cmd/bondvenue's TestBrowserMissing starts the venue (the quiet demo,
// with a deferral table that holds back the size of a trade of 10 m or
// more) and runs this; by hand, against such a venue:
//
//   BASE_URL=http://127.0.0.1:8080 CREDENTIALS=bondvenue-data/demo-credentials.json \
//     node web/e2e/dist/missing.js
import { strict as assert } from "node:assert";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Locator, type Page } from "playwright-core";
import { type UserCred, base, creds, firmName, launch, newPage, screenshots, signIn, signOut, step, user } from "./common.js";

const shots = screenshots("web/e2e/screenshots/missing");
const bond = "DBR 2.30 15/02/2033";
const rfqBond = "FRTR 3.00 25/11/2034";
const corp = "DT 7.50 24/01/2033";
const continuous = "bondvenue Continuous";

interface Named {
  id: string;
  name: string;
}

const tokens = new Map<string, string>();

/** api calls the venue's REST API as u and answers the body, failing on an error answer. */
async function api<T>(u: UserCred, method: string, path: string, body?: unknown): Promise<T> {
  let token = tokens.get(u.client_id);
  if (!token) {
    const res = await fetch(base + "/api/v1/auth/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ grant_type: "client_credentials", client_id: u.client_id, client_secret: u.client_secret }),
    });
    token = ((await res.json()) as { access_token: string }).access_token;
    tokens.set(u.client_id, token);
  }
  const res = await fetch(base + "/api/v1" + path, {
    method,
    headers: { Authorization: "Bearer " + token, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** dayIn is the date (YYYY-MM-DD) days from now in zone. */
function dayIn(zone: string, days = 0): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(Date.now() + days * 86_400_000));
}

/** clockIn is an instant's time of day (HH:MM) in zone. */
function clockIn(zone: string, iso: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(iso));
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, name + ".png") });
}

async function openInstrument(page: Page, name: string): Promise<void> {
  await page.getByRole("link", { name: "Market", exact: true }).click();
  await page.getByRole("searchbox").fill(name);
  await page.getByRole("link", { name }).click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
}

async function pick(select: Locator, label: string): Promise<void> {
  await select.selectOption({ label });
}

async function main(): Promise<void> {
  const browser = await launch();
  const traderA = user(0, "TRADER");
  const traderB = user(1, "TRADER");
  const [markets, instruments] = await Promise.all([api<Named[]>(traderA, "GET", "/markets"), api<(Named & { isin: string })[]>(traderA, "GET", "/instruments")]);
  const marketId = (name: string) => markets.find((m) => m.name === name)!.id;
  const ins = (name: string) => instruments.find((i) => i.name === name)!;
  const offer = (u: UserCred, name: string, direction: string, price: string, quantity: string) =>
    api<{ id: string; status: string }>(u, "POST", "/participant/offers", {
      instrument_id: ins(name).id, market_id: marketId(continuous), direction, price_per_unit: price, quantity,
    });
  try {
    const [ctxA, a] = await newPage(browser, { timezoneId: "Europe/Berlin" });
    const [ctxB, b] = await newPage(browser, { timezoneId: "America/New_York" });
    const [ctxC, c] = await newPage(browser, { timezoneId: "Asia/Tokyo" });
    await step("three traders sign in", async () => {
      await signIn(a, traderA);
      await signIn(b, traderB);
      await signIn(c, user(2, "TRADER"));
    });

    await step("the blotter dates each offer, filters, exports what it shows and cancels all open offers", async () => {
      await offer(traderA, bond, "bid", "95", "1000000");
      await offer(traderA, rfqBond, "bid", "94", "2000000");
      await a.getByRole("link", { name: "Blotter", exact: true }).click();
      const offers = a.getByRole("table", { name: "My offers and quotes" });
      const rows = offers.locator("tbody tr[data-offer]");
      await rows.nth(1).waitFor();
      assert.deepEqual(await offers.locator("td.entry-date").allInnerTexts(), [dayIn("Europe/Berlin"), dayIn("Europe/Berlin")], "each offer shows its entry date");
      const filters = a.getByRole("search", { name: "Blotter filters" });
      await pick(filters.getByLabel("Instrument", { exact: true }), bond);
      await a.waitForFunction(() => document.querySelectorAll("table[aria-label='My offers and quotes'] tbody tr[data-offer]").length === 1);
      await rows.first().getByText(bond).waitFor();
      await pick(filters.getByLabel("Side", { exact: true }), "Sell");
      await offers.getByText("No offers match the filters.").waitFor();
      await pick(filters.getByLabel("Side", { exact: true }), "Both");
      await pick(filters.getByLabel("Instrument", { exact: true }), "All");
      await filters.getByLabel("From date", { exact: true }).fill(dayIn("Europe/Berlin", 1));
      await filters.getByLabel("To date", { exact: true }).fill(dayIn("Europe/Berlin"));
      await filters.getByText(`From ${dayIn("Europe/Berlin", 1)} is after To ${dayIn("Europe/Berlin")}`).waitFor();
      await offers.getByText("No offers match the filters.").waitFor();
      await filters.getByLabel("From date", { exact: true }).fill(dayIn("Europe/Berlin"));
      await rows.nth(1).waitFor();
      await filters.getByLabel("From date", { exact: true }).fill("");
      await filters.getByLabel("To date", { exact: true }).fill("");
      await shot(a, "blotter-filters");
      const [download] = await Promise.all([a.waitForEvent("download"), a.getByRole("button", { name: "Export offers shown (CSV)" }).click()]);
      const csv = (await readFile(await download.path(), "utf8")).trim().split("\r\n");
      assert.match(csv[0] ?? "", /^Date,Time \(UTC\),Type,Side,Instrument,ISIN,Market,Price,Quantity,/, "a header row");
      assert.equal(csv.length, 3, `the two offers shown:\n${csv.join("\n")}`);
      assert.ok(csv.some((r) => r.includes(ins(bond).isin) && r.includes(",95,") && r.includes(",1000000,")), `the bid on ${bond}:\n${csv.join("\n")}`);
      // Cancel all asks first; Keep cancels nothing.
      await a.getByRole("button", { name: "Cancel all open offers" }).click();
      const confirm = a.getByRole("group", { name: "Confirm cancelling all open offers" });
      await confirm.getByText("Cancel all 2 open offers of the firm?").waitFor();
      await confirm.getByRole("button", { name: "Keep the offers" }).click();
      await confirm.waitFor({ state: "detached" });
      assert.equal(await rows.count(), 2);
      await a.getByRole("button", { name: "Cancel all open offers" }).click();
      await a.getByRole("button", { name: "Confirm cancelling 2 open offers" }).click();
      await a.locator(".notice", { hasText: "Cancelled 2 open offers" }).waitFor();
      await offers.getByText("No open offers.").waitFor();
      const open = await api<{ type: string }[]>(traderA, "GET", "/participant/offers?status=created");
      assert.equal(open.length, 0, "no open offer is left");
      const state = await api<{ enabled: boolean }>(user(0, "ADMIN"), "GET", "/participant/kill-switch");
      assert.equal(state.enabled, false, "the kill switch is not used: the firm still trades");
    });

    await step("the ticket sends a good-till-date order, and a market order whose rest is cancelled", async () => {
      await openInstrument(a, bond);
      const tif = a.getByLabel("Time in force", { exact: true });
      await tif.selectOption({ label: "Good till date" });
      const until = a.getByLabel("Valid until", { exact: true });
      await until.fill("2020-01-02 10:00");
      await a.getByText("The expiry must be in the future").waitFor();
      await until.fill(dayIn("Europe/Berlin", 2) + " 17:30");
      await a.getByText("The expiry must be in the future").waitFor({ state: "detached" });
      await a.getByLabel("Clean price (%)", { exact: true }).fill("95");
      await a.getByLabel("Quantity (nominal)", { exact: true }).fill("1000000");
      await a.getByRole("button", { name: "Place bid" }).click();
      await a.locator(".notice", { hasText: "Bid placed" }).first().waitFor();
      const placed = await api<{ id: string; validity: string; valid_until: string | null }[]>(traderA, "GET", "/participant/offers?status=created");
      assert.equal(placed.length, 1);
      assert.equal(placed[0]!.validity, "gtd");
      assert.equal(clockIn("Europe/Berlin", placed[0]!.valid_until ?? ""), "17:30", `valid until 17:30 in Berlin (${placed[0]!.valid_until})`);
      await api(traderA, "DELETE", `/participant/offers/${placed[0]!.id}`);

      await offer(traderB, bond, "ask", "99.9", "1000000");
      await tif.selectOption({ label: "Market (immediate or cancel)" });
      assert.ok(await a.getByLabel("Clean price (%)", { exact: true }).isDisabled(), "a market order has no price");
      await a.getByLabel("Quantity (nominal)", { exact: true }).fill("3000000");
      await a.getByRole("button", { name: "Place bid" }).click();
      await a.locator(".notice", { hasText: "Market bid: 1,000,000 done, the rest (2,000,000) cancelled" }).waitFor();
      await a.locator(".notice", { hasText: "Bought 1 m DBR 2.30 2033 @ 99.90" }).first().waitFor();
    });

    // A settlement date later than the default: five TARGET2 business days on, as the venue counts them.
    const utcToday = new Date().toISOString().slice(0, 10);
    const settles = (await api<{ settlement_date: string }>(traderA, "GET", `/calendars/TARGET2/settlement-date?trade_date=${utcToday}&lag=5`)).settlement_date;
    const title = `${firmName(2)} buys 2,000,000 ${rfqBond}`;
    await step("a request with a settlement date and a limit; the dealer sets its quote's validity; the requester reads the execution record", async () => {
      await c.getByRole("link", { name: "RFQ", exact: true }).click();
      const form = c.getByRole("form", { name: "Request quotes" });
      const option = form.getByLabel("Instrument", { exact: true }).locator("option", { hasText: rfqBond });
      await form.getByLabel("Instrument", { exact: true }).selectOption((await option.getAttribute("value")) ?? "");
      await c.getByRole("radio", { name: "Buy" }).click();
      await form.getByLabel("RFQ quantity (nominal)", { exact: true }).fill("2000000");
      await form.getByLabel("Limit price (%)", { exact: true }).fill("101,5");
      await form.getByText("Use a point for decimals").waitFor();
      await form.getByLabel("Limit price (%)", { exact: true }).fill("101.50");
      await form.getByLabel("RFQ settlement date", { exact: true }).fill(settles);
      await c.getByRole("group", { name: "Dealers" }).getByLabel(firmName(0), { exact: true }).check();
      await c.getByRole("group", { name: "Dealers" }).getByLabel(firmName(1), { exact: true }).check();
      await a.getByRole("link", { name: "RFQ", exact: true }).click();
      await c.getByRole("button", { name: "Send request" }).click();
      await c.locator(".notice", { hasText: "Request sent" }).first().waitFor();
      const sent = await api<{ settlement_date: string; price_per_unit: { limit_price: number } }[]>(user(2, "TRADER"), "GET", "/participant/rfq?status=created");
      assert.equal(sent[0]?.settlement_date, settles);
      assert.equal(sent[0]?.price_per_unit.limit_price, 101.5);

      const validity = a.getByLabel("Quote validity in seconds for " + title, { exact: true });
      await validity.fill("0");
      await a.getByText("Quote validity: between 1 and 86400 seconds").first().waitFor();
      await validity.fill("90");
      await a.getByLabel("Quote price for " + title, { exact: true }).fill("101.40");
      await a.getByRole("button", { name: "Send quote for " + title }).click();
      await a.locator(".notice", { hasText: "Quote sent" }).first().waitFor();

      const quotes = c.getByRole("table", { name: `Quotes for Buy 2,000,000 ${rfqBond}` });
      const quote = quotes.locator("tr", { hasText: firmName(0) });
      await quote.waitFor();
      // The request runs 5 minutes; the quote is valid for 90 seconds (the
      // screen's clock ticks each second: a second more at most).
      const expires = (await quote.locator("td").nth(4).innerText()).trim();
      assert.match(expires, /^(1:[0-2]\d|1:3[01]|0:\d\d)$/, `the quote expires within 90 s (${expires})`);
      await c.getByRole("button", { name: `Accept quote from ${firmName(0)}` }).click();
      await c.locator(".notice", { hasText: "Quote accepted: trade done" }).first().waitFor();
      await c.getByRole("button", { name: `Execution record of Buy 2,000,000 ${rfqBond}` }).click();
      const record = c.getByRole("region", { name: `Execution record of Buy 2,000,000 ${rfqBond}` });
      const dealers = record.getByRole("table", { name: `Dealers of Buy 2,000,000 ${rfqBond}` });
      await dealers.locator("tr", { hasText: firmName(0) }).getByRole("cell", { name: "done", exact: true }).waitFor();
      await dealers.locator("tr", { hasText: firmName(1) }).getByText("no answer").waitFor();
      assert.match(await dealers.locator("tr", { hasText: firmName(0) }).locator("td").nth(2).innerText(), /^\d+( ms|\.\d{3} s| min \d\d s)$/, "its response time");
      await record.getByText("101.4000").first().waitFor();
      await record.getByText("no cover to compare with").waitFor();
      await shot(c, "rfq-execution-record");
      await c.getByRole("link", { name: "Blotter", exact: true }).click();
      const trade = c.getByRole("table", { name: "My trades" }).locator("tbody tr", { hasText: rfqBond }).first();
      await trade.getByRole("cell", { name: settles, exact: true }).waitFor();
    });

    await step("an executable request trades the first quote at or better than its limit", async () => {
      await c.getByRole("link", { name: "RFQ", exact: true }).click();
      const form = c.getByRole("form", { name: "Request quotes" });
      const option = form.getByLabel("Instrument", { exact: true }).locator("option", { hasText: rfqBond });
      await form.getByLabel("Instrument", { exact: true }).selectOption((await option.getAttribute("value")) ?? "");
      await c.getByRole("radio", { name: "Buy" }).click();
      await form.getByLabel("RFQ quantity (nominal)", { exact: true }).fill("3000000");
      await form.getByLabel("Executable: trade the first quote at or better than the limit").check();
      await form.getByText("An executable request needs a limit price").first().waitFor();
      await form.getByLabel("Limit price (%)", { exact: true }).fill("101.50");
      await form.getByText("An executable request needs a limit price").first().waitFor({ state: "detached" });
      await c.getByRole("group", { name: "Dealers" }).getByLabel(firmName(0), { exact: true }).check();
      await c.getByRole("button", { name: "Send request" }).click();
      await c.locator(".notice", { hasText: "Request sent" }).first().waitFor();
      const t3 = `${firmName(2)} buys 3,000,000 ${rfqBond}`;
      await a.getByLabel("Quote price for " + t3, { exact: true }).fill("101.45");
      await a.getByRole("button", { name: "Send quote for " + t3 }).click();
      await c.getByRole("article", { name: `Request Buy 3,000,000 ${rfqBond}` }).getByText(`traded 3,000,000 at 101.4500 with ${firmName(0)}`).waitFor();
    });

    await step("the Tape page shows the venue's public tape live, a held-back size as deferred, time with its zone", async () => {
      await b.getByRole("link", { name: "Tape", exact: true }).click();
      const tape = b.getByRole("table", { name: "Public tape" });
      await tape.locator("tbody tr", { hasText: rfqBond }).nth(1).waitFor();
      await offer(traderB, corp, "ask", "100", "10000000");
      await offer(traderA, corp, "bid", "100", "10000000");
      const held = tape.locator("tbody tr", { hasText: corp }).first();
      await held.getByRole("cell", { name: "deferred", exact: true }).waitFor();
      await held.getByText("LMTF").waitFor();
      await held.getByRole("cell", { name: "100.0000" }).waitFor();
      const rfqRow = tape.locator("tbody tr", { hasText: rfqBond }).filter({ hasText: "101.4000" }).first();
      await rfqRow.getByRole("cell", { name: ins(rfqBond).isin }).waitFor();
      await rfqRow.getByRole("cell", { name: "2,000,000" }).waitFor();
      const when = (await rfqRow.locator("td").first().innerText()).trim();
      assert.match(when, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (EST|EDT|GMT-[45])$/, `a time with its zone (${when})`);
      await shot(b, "tape");
      await pick(b.getByRole("search", { name: "Tape filters" }).getByLabel("Instrument", { exact: true }), rfqBond);
      await tape.locator("tbody tr", { hasText: corp }).first().waitFor({ state: "detached" });
      const names = await tape.locator("tbody tr td:nth-child(2)").allInnerTexts();
      assert.ok(names.length >= 2 && names.every((n) => n === rfqBond), `only ${rfqBond}: ${names.join(", ")}`);
    });

    await step("news arriving elsewhere counts on the News tab and is a notice; each item shows its date", async () => {
      await a.getByRole("link", { name: "Market", exact: true }).click();
      const publish = (title: string) =>
        api(creds.operator, "POST", "/admin/news", { title, body: "Published while the screen is open.", source: "bondvenue operations" });
      await publish("Missing-journey bulletin");
      await a.locator(".notice", { hasText: "News: Missing-journey bulletin" }).waitFor();
      const badge = a.locator("nav .news-unread");
      assert.equal((await badge.innerText()).trim(), "1");
      assert.equal((await a.locator("#news-unread").textContent())?.trim(), "1 unread news");
      await a.getByRole("link", { name: "News", exact: true }).click();
      await badge.waitFor({ state: "detached" });
      const item = a.getByRole("article", { name: "Missing-journey bulletin" });
      const when = (await item.locator("time.published").innerText()).trim();
      assert.match(when, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (CET|CEST|GMT\+[12])$/, `the item's date, time and zone (${when})`);
      await publish("Read where it arrives");
      await a.getByRole("heading", { name: "Read where it arrives" }).waitFor();
      assert.equal(await badge.count(), 0, "news read on its page is not unread");
      assert.equal(await a.locator(".notice", { hasText: "News: Read where it arrives" }).count(), 0, "nor a notice");
      await shot(a, "news");
    });

    await step("sign-out", async () => {
      for (const p of [a, b, c]) await signOut(p);
    });
    await ctxA.close();
    await ctxB.close();
    await ctxC.close();
  } finally {
    await browser.close();
  }
}

main().then(
  () => console.log("browser tests of what was missing passed"),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
