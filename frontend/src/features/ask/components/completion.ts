import type { SemanticModel } from "@/features/ask/api/jobs";

/** Every word the semantic model reads: metrics, dimensions, industries, indexes, exchanges, boards. */
export function vocabulary(model: SemanticModel): string[] {
  const words = new Set<string>();
  const add = (list: readonly string[]) => list.forEach((word) => words.add(word));
  for (const metric of model.metrics) {
    add(metric.words.zh);
    add(metric.words.en);
  }
  for (const dimension of model.dimensions) add(dimension.words);
  for (const group of [model.industries, model.indexes, model.exchanges, model.boards]) {
    for (const [key, synonyms] of Object.entries(group)) add([key, ...synonyms]);
  }
  for (const group of model.industry_groups) add(group.words);
  return [...words].filter((word) => word.trim().length > 1);
}

export interface Completion {
  fragment: string;
  words: string[];
}

const MAX_FRAGMENT = 12;
const MAX_SUGGESTIONS = 8;
const CJK = /[\u3400-\u9fff]/;

/** Words that complete the end of the text: the longest trailing fragment (one CJK character, or
 * two letters of a Latin word) that starts some model word; shortest words first. */
export function complete(text: string, words: readonly string[]): Completion | null {
  for (let start = Math.max(0, text.length - MAX_FRAGMENT); start < text.length; start += 1) {
    const fragment = text.slice(start);
    if (/\s/.test(fragment)) continue;
    if (!CJK.test(fragment) && (fragment.length < 2 || (start > 0 && /\w/.test(text[start - 1] ?? "")))) continue;
    const lower = fragment.toLowerCase();
    const matches = words
      .filter((word) => word.toLowerCase().startsWith(lower) && word.length > fragment.length)
      .sort((a, b) => a.length - b.length || a.localeCompare(b))
      .slice(0, MAX_SUGGESTIONS);
    if (matches.length > 0) return { fragment, words: matches };
  }
  return null;
}
