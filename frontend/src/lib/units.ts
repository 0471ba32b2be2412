// Numbers in the units people read: money in 亿元/万元 (¥ bn/m in English), ratios in %, multiples
// in 倍 (×). A result column takes the stored unit of the semantic-model metric it is named after.

/** The unit a metric is stored in, as the semantic model names it: 元, 万元, 千元, %, 倍, 手, 万股, … */
export type StoredUnit = string;

export interface UnitMetric {
  column: string;
  stored_unit: StoredUnit;
}

// Base units (yuan or shares) per stored unit.
const FACTORS: Record<string, number> = { 元: 1, 千元: 1e3, 万元: 1e4, 亿元: 1e8, 股: 1, 手: 100, 万股: 1e4, 亿股: 1e8 };

export type Locale = "zh" | "en";

const MONEY = new Set(["元", "万元", "千元", "亿元"]);
const SHARES = new Set(["股", "万股", "手", "亿股"]);

/** The metric a result column is named after: the longest metric column whose words it contains
 * (`avg_total_mv` → total_mv, `n_income_attr_p_2023` → n_income_attr_p); none for counts and names. */
export function unitForColumn(column: string, metrics: readonly UnitMetric[]): StoredUnit | undefined {
  const words = column.toLowerCase().split("_");
  let best: UnitMetric | undefined;
  for (const metric of metrics) {
    const target = metric.column.toLowerCase().split("_");
    for (let start = 0; start + target.length <= words.length; start += 1) {
      if (target.every((word, offset) => words[start + offset] === word)) {
        if (!best || metric.column.length > best.column.length) best = metric;
        break;
      }
    }
  }
  return best?.stored_unit;
}

function fixed(value: number, digits: number, locale: Locale): string {
  return new Intl.NumberFormat(locale === "zh" ? "zh-CN" : "en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
}

type Steps = readonly (readonly [number, string])[];

const STEPS: Record<"money" | "shares", Record<Locale, Steps>> = {
  money: {
    zh: [[1e8, "亿元"], [1e4, "万元"], [1, "元"]],
    en: [[1e9, "bn yuan"], [1e6, "m yuan"], [1, "yuan"]],
  },
  shares: {
    zh: [[1e8, "亿股"], [1e4, "万股"], [1, "股"]],
    en: [[1e9, "bn shares"], [1e6, "m shares"], [1, "shares"]],
  },
};

function scaled(base: number, steps: Steps, locale: Locale): string {
  const [size, word] = steps.find(([step]) => Math.abs(base) >= step) ?? steps[steps.length - 1] ?? [1, ""];
  return `${fixed(base / size, 2, locale)}${locale === "zh" ? "" : " "}${word}`;
}

/** A number shown in its unit; anything that is not a finite number is left to the caller. */
export function formatWithUnit(value: number, unit: StoredUnit | undefined, locale: Locale): string {
  if (!unit) return Number.isInteger(value) ? String(value) : fixed(value, Math.abs(value) >= 100 ? 2 : 4, locale);
  if (unit === "%") return `${fixed(value, 2, locale)}%`;
  if (unit === "倍") return locale === "zh" ? `${fixed(value, 2, locale)}倍` : `${fixed(value, 2, locale)}×`;
  const base = value * (FACTORS[unit] ?? 1);
  if (MONEY.has(unit)) return scaled(base, STEPS.money[locale], locale);
  if (SHARES.has(unit)) return scaled(base, STEPS.shares[locale], locale);
  return `${fixed(value, 2, locale)} ${unit}`;
}
