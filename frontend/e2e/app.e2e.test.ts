// The whole product in a real browser: daphne + Django + chdb demo data + the built React app.
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { type Backend, REPO_ROOT, startBackend } from "./backend";
import { type Browser, launchBrowser } from "./browser";

const SCREENSHOT = process.env.UPDATE_SCREENSHOT
  ? join(REPO_ROOT, "docs", "screenshot.png")
  : join(tmpdir(), "veriscreen-e2e-screenshot.png");

let backend: Backend | undefined;
let browser: Browser | undefined;
let page: Page;
let pageErrors: string[] = [];
let expectedHttpStatus: number | null = null; // a test that provokes an HTTP error says which

beforeAll(async () => {
  // Launch Chromium first: a missing browser fails at once, before minutes of data generation.
  browser = await launchBrowser();
  backend = await startBackend();
});

afterAll(async () => {
  await browser?.close();
  await backend?.stop();
});

async function openPage(path: string): Promise<Page> {
  if (!browser || !backend) throw new Error("the browser or the backend did not start");
  page = await browser.context.newPage();
  pageErrors = [];
  expectedHttpStatus = null;
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    const text = message.text();
    const expected = expectedHttpStatus !== null && text.includes(`status of ${expectedHttpStatus}`);
    if (message.type() === "error" && !expected) pageErrors.push(text);
  });
  await page.goto(`${backend.url}${path}`);
  return page;
}

afterEach(async () => {
  await page?.close();
  expect(pageErrors).toEqual([]); // no uncaught errors and no failed loads the test did not provoke
});

describe("VeriScreen in Chromium", () => {
  it("says the demo data is synthetic and shows what is loaded", async () => {
    await openPage("/market");
    await expect.poll(() => page.getByTestId("synthetic-banner").textContent()).toContain("SYNTHETIC demo data");
    const stats = page.getByRole("table", { name: "Market data" });
    await stats.waitFor();
    const stockRow = stats.getByRole("row").filter({ hasText: "stock_basic" });
    expect(await stockRow.textContent()).toContain("200");
    const dailyRow = stats.getByRole("row").filter({ hasText: /^daily\d/ });
    const dailyCells = await dailyRow.getByRole("cell").allTextContents();
    expect(Number(dailyCells[1]?.replaceAll(",", ""))).toBeGreaterThan(100_000);
    expect(dailyCells[2]).toBe("200"); // distinct stocks
    expect(dailyCells[4]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await page.getByRole("table", { name: "Datasets" }).textContent()).toContain("ashare_demo");
  });

  it("runs a console query and shows its rows", async () => {
    await openPage("/console");
    await page
      .getByRole("textbox", { name: "SQL console" })
      .fill("SELECT ts_code, name, exchange FROM market.stock_basic WHERE exchange = 'SSE' ORDER BY ts_code LIMIT 7");
    await page.getByRole("button", { name: "Run" }).click();
    const result = page.getByRole("table", { name: "sql-result" });
    await result.waitFor();
    expect(await result.getByRole("row").count()).toBe(8);
    expect(await result.getByRole("cell").allTextContents()).toContain("SSE");
    expect(await page.getByTestId("console-summary").textContent()).toContain("7 rows");
  });

  it("shows the guard's reason for a refused statement", async () => {
    await openPage("/console");
    expectedHttpStatus = 400; // Chromium logs the refused request itself
    await page.getByRole("textbox", { name: "SQL console" }).fill("SELECT 1; DROP TABLE market.daily");
    await page.getByRole("button", { name: "Run" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.getAttribute("data-error-code")).toBe("query_rejected");
    expect(await alert.textContent()).toContain("Refused by the SQL guard");
    expect(await alert.textContent()).toMatch(/statement/i);
    expect(await page.getByRole("table", { name: "sql-result" }).count()).toBe(0);
  });

  it("answers a seed question with formatted SQL and a result table", async () => {
    await openPage("/");
    await page.getByRole("button", { name: "2025年9月8日收盘价最高的上交所股票" }).click();
    const answer = page.getByTestId("ask-answer");
    await answer.waitFor();
    expect(await answer.getAttribute("data-status")).toBe("ok");
    const sql = (await page.getByLabel("ask-sql").textContent()) ?? "";
    expect(sql).toMatch(/^SELECT\n/);
    expect(sql).toContain("'SSE'");
    expect(sql).toContain("AS name"); // formatting never renames identifiers
    const result = page.getByRole("table", { name: "ask-result" });
    expect(await result.getByRole("row").count()).toBe(2);
    expect(await result.getByRole("cell").first().textContent()).toMatch(/^\d{6}\.SH$/);
    expect(await page.getByTestId("ask-timings").textContent()).toContain("execute");
  });

  it("answers a top-k-per-group question (the README screenshot)", async () => {
    await openPage("/");
    await page.getByRole("button", { name: "统计各行业板块涨幅前三的股票及其平均市值" }).click();
    const answer = page.getByTestId("ask-answer");
    await answer.waitFor();
    expect(await answer.getAttribute("data-status")).toBe("ok");
    const result = page.getByRole("table", { name: "ask-result" });
    const headers = await result.getByRole("columnheader").allTextContents();
    expect(headers.join(" ")).toContain("industry");
    expect(await result.getByRole("row").count()).toBeGreaterThan(4);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
  });

  it("says clearly when a question is not understood", async () => {
    await openPage("/");
    await page.getByRole("textbox", { name: "Ask a question" }).fill("what is the phase of the moon");
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    const answer = page.getByTestId("ask-answer");
    await answer.waitFor();
    expect(await answer.getAttribute("data-status")).toBe("not_understood");
    expect(await page.getByTestId("ask-status").textContent()).toBe("Not understood");
    expect(await page.getByTestId("ask-message").textContent()).toContain("moon");
    expect(await page.getByRole("table", { name: "ask-result" }).count()).toBe(0);
  });

  it("switches the interface to Chinese", async () => {
    await openPage("/");
    await page.getByTestId("language-toggle").click();
    await page.getByRole("link", { name: "SQL 控制台" }).click();
    await page.getByRole("button", { name: "执行" }).waitFor();
    expect(await page.getByTestId("synthetic-banner").textContent()).toContain("合成演示数据");
    expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
  });
});
