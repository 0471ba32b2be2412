import { describe, expect, it } from "vitest";

import { complete } from "@/features/ask/components/completion";

const WORDS = ["市盈率", "市盈率TTM", "市值", "总市值", "market cap", "market value", "close"];

describe("complete", () => {
  it("completes the Chinese word being typed", () => {
    expect(complete("找出市盈", WORDS)).toEqual({ fragment: "市盈", words: ["市盈率", "市盈率TTM"] });
    expect(complete("市", WORDS)?.words).toEqual(["市值", "市盈率", "市盈率TTM"]);
  });

  it("completes an English word from its first two letters, never from the middle of a word", () => {
    expect(complete("top 10 by mar", WORDS)).toEqual({ fragment: "mar", words: ["market cap", "market value"] });
    expect(complete("enclo", WORDS)).toBeNull();
    expect(complete("c", WORDS)).toBeNull();
  });

  it("offers nothing once the word is complete or unknown", () => {
    expect(complete("close", WORDS)).toBeNull();
    expect(complete("what is the moon ", WORDS)).toBeNull();
  });
});
