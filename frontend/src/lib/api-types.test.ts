// @vitest-environment node
// The committed API types are generated, never edited: regenerating them from the committed schema
// (`npm run gen:schema` writes it from the backend, `npm run gen:api` turns it into types) changes nothing.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { afterAll, describe, expect, it } from "vitest";

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
const cli = join(dirname(createRequire(import.meta.url).resolve("openapi-typescript/package.json")), "bin", "cli.js");
const scratch = mkdtempSync(join(tmpdir(), "veriscreen-api-types-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("generated API types", () => {
  it("match the committed OpenAPI schema", () => {
    const generated = join(scratch, "api-types.ts");
    execFileSync(process.execPath, [cli, here("./api-schema.yaml"), "-o", generated], { stdio: "pipe" });
    expect(readFileSync(here("./api-types.ts"), "utf8")).toBe(readFileSync(generated, "utf8"));
  }, 60_000); // a node process of its own: slow on a loaded machine
});
