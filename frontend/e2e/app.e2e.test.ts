// The whole product in a real browser: daphne + Django + jobs + the WebSocket stream + chdb demo data +
// the built React app. Nothing is mocked. Screenshots of each page go to e2e/artifacts/ (gitignored);
// UPDATE_SCREENSHOT=1 also writes the README's docs/screenshot.png.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { ADMIN, ANALYST, type Backend, type Credentials, REPO_ROOT, startBackend } from "./backend";
import { type Browser, launchBrowser } from "./browser";

const ARTIFACTS = join(REPO_ROOT, "frontend", "e2e", "artifacts");
const SCREEN_NAME = "e2e 行业涨幅前三";
const ZH_QUESTION = "统计各行业板块涨幅前三的股票及其平均市值";
const EN_QUESTION = "Top 10 stocks by market cap on the latest trading day";

let backend: Backend | undefined;
let browser: Browser | undefined;
let page: Page;
let pageErrors: string[] = [];
let expectedHttpStatus: number | null = null; // a test that provokes an HTTP error says which

beforeAll(async () => {
  // Launch Chromium first: a missing browser fails at once, before minutes of data generation.
  browser = await launchBrowser();
  backend = await startBackend();
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await backend?.stop();
});

async function openPage(path: string, expectStatus: number | null = null): Promise<Page> {
  if (!browser || !backend) throw new Error("the browser or the backend did not start");
  page = await browser.context.newPage();
  pageErrors = [];
  expectedHttpStatus = expectStatus;
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    const text = message.text();
    const expected = expectedHttpStatus !== null && text.includes(`status of ${expectedHttpStatus}`);
    if (message.type() === "error" && !expected) pageErrors.push(text);
  });
  await page.goto(`${backend.url}${path}`);
  return page;
}

async function snapshot(name: string): Promise<string> {
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

async function signIn({ username, password }: Credentials): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("user-menu").waitFor();
}

/** Steps in the timeline each time the DOM changes, recorded in the page from before the question. */
async function recordTimeline(): Promise<void> {
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { timelineCounts: number[] }).timelineCounts = seen;
    new MutationObserver(() => {
      const count = document.querySelectorAll("[data-testid=timeline-step], [data-testid=timeline-check]").length;
      if (seen.at(-1) !== count) seen.push(count);
    }).observe(document.body, { childList: true, subtree: true });
  });
}

async function answered(): Promise<{ status: string | null; counts: number[] }> {
  const answer = page.getByTestId("answer");
  await answer.waitFor({ timeout: 90_000 });
  const counts = await page.evaluate(() => (window as unknown as { timelineCounts: number[] }).timelineCounts);
  return { status: await answer.getAttribute("data-status"), counts };
}

afterEach(async () => {
  await page?.close();
  expect(pageErrors).toEqual([]); // no uncaught errors and no failed loads the test did not provoke
});

describe("VeriScreen in Chromium", () => {
  it("serves the OpenAPI schema the committed types were generated from", async () => {
    if (!backend) throw new Error("no backend");
    const served = await (await fetch(`${backend.url}/api/schema/`)).text();
    expect(served).toBe(readFileSync(join(REPO_ROOT, "frontend", "src", "lib", "api-schema.yaml"), "utf8"));
  });

  it("asks who is there, says the data is synthetic, and signs the analyst in", async () => {
    await openPage("/", 401); // the session probe before signing in is answered 401
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.getByTestId("synthetic-banner").textContent()).toContain("SYNTHETIC demo data");
    await snapshot("login");
    await signIn(ANALYST);
    expect(await page.getByTestId("user-menu").textContent()).toContain("analyst");
    expect(await page.getByRole("link", { name: "Paradigms" }).count()).toBe(0);
    await page.getByRole("heading", { name: "Ask a question" }).waitFor();
  });

  it("asks in Chinese: the timeline fills live, then badge, table, chart, CSV; saves a screen", async () => {
    await openPage("/");
    await recordTimeline();
    await page.getByRole("button", { name: ZH_QUESTION }).click();
    const { status, counts } = await answered();
    expect(["verified", "corrected", "unverified"]).toContain(status);
    // The timeline grew as events arrived instead of appearing whole; it never shrank.
    expect(counts.length).toBeGreaterThan(1);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    const steps = await page.getByTestId("timeline-step").evaluateAll((nodes) =>
      nodes.map((node) => `${node.getAttribute("data-step")}:${node.getAttribute("data-outcome")}`),
    );
    expect(steps[0]).toBe("probe:ok");
    expect(steps).toContain("checklist:ok");
    expect(steps.some((step) => step.endsWith(":running"))).toBe(false);
    const checks = await page.getByTestId("timeline-check").allTextContents();
    expect(checks.some((text) => text.includes("前三"))).toBe(true); // readable, in the question's language
    expect(await page.getByTestId("timeline-finished").textContent()).toMatch(/Finished: (Verified|Corrected|Unverified)/);
    expect(await page.getByTestId("status-badge").textContent()).toMatch(/Verified|Corrected|Unverified/);

    const table = page.getByRole("table", { name: "answer-result" });
    const headers = await table.getByRole("columnheader").allTextContents();
    expect(headers.join(" ")).toContain("industry");
    expect(await table.getByRole("row").count()).toBe(21); // a page of 20 rows and the header
    expect(await page.getByTestId("table-page").textContent()).toMatch(/^Page 1 of \d+$/);
    const mvColumn = headers.findIndex((header) => header.startsWith("total_mv"));
    expect(await table.getByRole("row").nth(1).getByRole("cell").nth(mvColumn).textContent()).toMatch(/ (bn|m) yuan$/);
    const chart = page.getByTestId("result-chart");
    expect(await chart.getAttribute("data-kind")).toBe("histogram");
    await chart.locator("svg").first().waitFor();
    expect(await page.getByLabel("answer-sql").textContent()).toMatch(/^SELECT\n/);

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("csv-download").click()]);
    const csv = readFileSync((await download.path()) ?? "", "utf8").replace(/^\uFEFF/, "").trim().split(/\r?\n/);
    expect(csv[0]).toContain("industry");
    const rowCount = Number((await page.locator(".pager .muted").first().textContent())?.match(/\d+/)?.[0]);
    expect(csv.length - 1).toBe(rowCount);

    await page.getByRole("textbox", { name: "Screen name" }).fill(SCREEN_NAME);
    await page.getByRole("button", { name: "Save as screen" }).click();
    expect(await page.getByTestId("screen-saved").textContent()).toContain(SCREEN_NAME);
    const shot = await snapshot("ask-zh");
    if (process.env.UPDATE_SCREENSHOT) copyFileSync(shot, join(REPO_ROOT, "docs", "screenshot.png"));
  });

  it("asks in English with completion from the semantic model: a ranking as bars", async () => {
    await openPage("/");
    const box = page.getByRole("textbox", { name: "Ask a question" });
    await box.pressSequentially("Top 10 stocks by mar");
    await page.getByRole("group", { name: "Completions from the semantic model" }).getByRole("button", { name: "market cap", exact: true }).click();
    await box.pressSequentially(" on the latest trading day");
    expect(await box.inputValue()).toBe(EN_QUESTION);
    await recordTimeline();
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const { status } = await answered();
    expect(["verified", "corrected", "unverified"]).toContain(status);
    const checks = await page.getByTestId("timeline-check").allTextContents();
    expect(checks.length).toBeGreaterThan(2);
    expect(await page.getByRole("table", { name: "answer-result" }).getByRole("row").count()).toBe(11);
    expect(await page.getByTestId("result-chart").getAttribute("data-kind")).toBe("bars");
    await snapshot("ask-en");
    await page.setViewportSize({ width: 820, height: 1180 }); // a tablet held upright
    await page.getByTestId("result-chart").scrollIntoViewIfNeeded();
    await snapshot("ask-en-tablet");
  });

  it("names the words of a question it could not read", async () => {
    await openPage("/");
    await page.getByRole("textbox", { name: "Ask a question" }).fill("what is the phase of the moon");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const status = page.getByTestId("status");
    await status.waitFor({ timeout: 90_000 });
    expect(await status.getAttribute("data-status")).toBe("not_understood");
    expect(await page.getByTestId("unread-words").locator("mark").allTextContents()).toEqual(["phase", "moon"]);
    expect(await page.getByRole("table", { name: "answer-result" }).count()).toBe(0);
  });

  it("re-runs the saved screen on the latest data", async () => {
    await openPage("/screens");
    await page.getByRole("searchbox", { name: "Search screens" }).fill("行业涨幅");
    await page.getByRole("button", { name: SCREEN_NAME }).click();
    const detail = page.getByTestId("screen-detail");
    await detail.getByText("Not run yet.").waitFor();
    await detail.getByRole("button", { name: "Re-run on the latest data" }).click();
    await page.getByRole("table", { name: "screen-result" }).waitFor({ timeout: 90_000 });
    expect(await page.getByTestId("screen-result-meta").textContent()).toMatch(/^Latest result: job \d+/);
    expect(await page.getByRole("table", { name: "Run history" }).getByRole("row").count()).toBe(2);
    expect(await page.getByTestId("csv-download").getAttribute("href")).toMatch(/^\/api\/screens\/\d+\/result\/csv\/$/);
    await snapshot("screens");
  });

  it("lists the history and replays a finished job's whole timeline (late connect)", async () => {
    await openPage("/history");
    const history = page.getByRole("table", { name: "History" });
    await history.waitFor();
    expect(await history.getByRole("row").count()).toBeGreaterThanOrEqual(4); // 3 asked + 1 screen run
    await snapshot("history");
    await history.getByRole("link", { name: EN_QUESTION }).first().click();
    await page.getByTestId("answer").waitFor();
    expect(await page.getByTestId("timeline-finished").count()).toBe(1);
    expect(await page.getByTestId("asked-question").textContent()).toContain(EN_QUESTION);
  });

  it("checks the market data and runs a console query", async () => {
    await openPage("/market");
    const stats = page.getByRole("table", { name: "Market data" });
    await stats.waitFor();
    const dailyCells = await stats.getByRole("row").filter({ hasText: /^daily\d/ }).getByRole("cell").allTextContents();
    expect(Number(dailyCells[1]?.replaceAll(",", ""))).toBeGreaterThan(100_000);
    expect(await page.getByRole("table", { name: "Datasets" }).textContent()).toContain("ashare_demo");
    await snapshot("market");
    await page.getByRole("link", { name: "SQL console" }).click();
    expectedHttpStatus = 400; // Chromium logs the refused request itself
    await page.getByRole("textbox", { name: "SQL console" }).fill("SELECT 1; DROP TABLE market.daily");
    await page.getByRole("button", { name: "Run" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.getAttribute("data-error-code")).toBe("query_rejected");
  });

  it("switches the interface to Chinese", async () => {
    await openPage("/");
    await page.getByTestId("language-toggle").click();
    await page.getByRole("link", { name: "选股方案" }).waitFor();
    expect(await page.getByTestId("synthetic-banner").textContent()).toContain("合成演示数据");
    expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
    await page.getByTestId("language-toggle").click(); // back to English for the tests after
  });

  it("signs out, and the admin pins a paradigm", async () => {
    await openPage("/");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await signIn(ADMIN);
    await page.getByRole("link", { name: "Paradigms" }).click();
    const stats = page.getByTestId("paradigm-stats");
    await stats.waitFor();
    const library = page.getByRole("table", { name: "Paradigm library" });
    await page.getByRole("searchbox", { name: "Search paradigms (question or SQL)" }).fill("行业");
    await library.getByRole("button", { name: ZH_QUESTION }).first().click();
    const detail = page.getByTestId("paradigm-detail");
    await detail.getByTestId("qst-tree").waitFor();
    expect(await detail.getByTestId("qst-tree").textContent()).toContain("industry");
    await detail.getByRole("button", { name: "Pin", exact: true }).click();
    await detail.getByRole("button", { name: "Unpin" }).waitFor();
    expect(await detail.textContent()).toContain("Pinned");
    await expect.poll(async () => (await stats.textContent()) ?? "").toMatch(/Pinned\s*1/);
    await page.getByTestId("hit-rate-chart").locator("svg").first().waitFor();
    await snapshot("paradigms");
  });
});
