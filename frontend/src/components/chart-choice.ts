// Which chart suits a result: the price of one stock over time (with moving averages), bars for a
// ranking or a group aggregate, the distribution of a measure for a screen, or none.

export type ChartChoice =
  | { kind: "price"; date: number; close: number; title: string }
  | { kind: "bars"; label: number; value: number }
  | { kind: "histogram"; value: number }
  | { kind: "none" };

export interface ChartInput {
  columns: readonly string[];
  columnTypes: readonly string[];
  rows: readonly (readonly unknown[])[];
  sql: string | null;
}

const STOCK_KEYS = new Set(["ts_code", "name", "code", "symbol"]);
const NOT_MEASURES = /^(ts_code|code|symbol|rn|row_number|year|month|list_date|end_date|ann_date|trade_date)$|rank|_year$/;
const MAX_BARS = 40;
const MIN_HISTOGRAM_ROWS = 8;

const isNumericType = (type: string) => /^(Nullable\()?(U?Int|Float|Decimal)/.test(type);
const isDateType = (type: string) => /^(Nullable\()?Date/.test(type);

function measures(input: ChartInput): number[] {
  return input.columns
    .map((column, index) => ({ column, index }))
    .filter(({ column, index }) => isNumericType(input.columnTypes[index] ?? "") && !NOT_MEASURES.test(column))
    .map(({ index }) => index);
}

/** The measure the SQL orders by (what a ranking ranks), else the first measure. */
function preferredMeasure(input: ChartInput, numeric: number[]): number | undefined {
  const orderings = [...(input.sql ?? "").matchAll(/order\s+by\s+([^)]*?)(?=\blimit\b|\)|$)/gi)].map((match) => match[1] ?? "");
  const ordered = numeric.find((index) => {
    const column = (input.columns[index] ?? "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return orderings.some((clause) => new RegExp(`\\b${column}\\b`, "i").test(clause));
  });
  return ordered ?? numeric[0];
}

function distinct(rows: ChartInput["rows"], index: number): number {
  return new Set(rows.map((row) => row[index])).size;
}

export function chooseChart(input: ChartInput): ChartChoice {
  const { columns, columnTypes, rows } = input;
  if (rows.length < 2) return { kind: "none" };
  const numeric = measures(input);
  const first = preferredMeasure(input, numeric);
  if (first === undefined) return { kind: "none" };

  const code = columns.indexOf("ts_code");
  const date = columnTypes.findIndex(isDateType);
  const close = columns.indexOf("close");
  const oneStock = code < 0 || distinct(rows, code) === 1;
  if (date >= 0 && close >= 0 && oneStock && distinct(rows, date) === rows.length) {
    const name = columns.indexOf("name");
    const title = String((name >= 0 ? rows[0]?.[name] : code >= 0 ? rows[0]?.[code] : "") ?? "");
    return { kind: "price", date, close, title };
  }

  // A label per row: a group (industry, area, exchange…) or a stock's name or code.
  const labels = columns
    .map((column, index) => ({ column, index }))
    .filter(({ index }) => !isNumericType(columnTypes[index] ?? "") && !isDateType(columnTypes[index] ?? ""));
  const group = labels.find(({ column }) => !STOCK_KEYS.has(column));
  const stock = labels.find(({ column }) => column === "name") ?? labels.find(({ column }) => STOCK_KEYS.has(column));
  const ranked = /\border\s+by\b[\s\S]*\blimit\b/i.test(input.sql ?? "");
  if (group && !stock && distinct(rows, group.index) === rows.length && rows.length <= MAX_BARS) {
    return { kind: "bars", label: group.index, value: first };
  }
  if (stock && ranked && rows.length <= MAX_BARS && distinct(rows, stock.index) === rows.length) {
    return { kind: "bars", label: stock.index, value: first };
  }
  if (stock && rows.length >= MIN_HISTOGRAM_ROWS) return { kind: "histogram", value: first };
  return { kind: "none" };
}

/** Trailing simple moving average; null until `window` values exist. */
export function movingAverage(values: readonly (number | null)[], window: number): (number | null)[] {
  return values.map((_, end) => {
    if (end + 1 < window) return null;
    const slice = values.slice(end + 1 - window, end + 1);
    if (slice.some((value) => value === null)) return null;
    return Number(((slice as number[]).reduce((sum, value) => sum + value, 0) / window).toFixed(4));
  });
}

export interface Bin {
  from: number;
  to: number;
  count: number;
}

/** Equal-width bins over the finite values (Sturges' rule for their number). */
export function histogram(values: readonly number[]): Bin[] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [];
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const count = Math.max(1, Math.ceil(Math.log2(finite.length) + 1));
  const width = max > min ? (max - min) / count : 1;
  const bins = Array.from({ length: count }, (_, index) => ({ from: min + index * width, to: min + (index + 1) * width, count: 0 }));
  for (const value of finite) {
    const bin = bins[Math.min(count - 1, Math.floor((value - min) / width))];
    if (bin) bin.count += 1;
  }
  return bins;
}
