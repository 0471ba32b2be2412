import { useMemo } from "react";
import { useTranslation } from "react-i18next";

import { type ChartChoice, type ChartInput, chooseChart, histogram, movingAverage } from "@/components/chart-choice";
import { EChart } from "@/components/echart";
import { formatWithUnit, type Locale, type StoredUnit } from "@/lib/units";

const MA_WINDOWS = [5, 20, 60];
const asNumber = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

function option(choice: ChartChoice, input: ChartInput, unitOf: (column: string) => StoredUnit | undefined, locale: Locale) {
  const grid = { left: 64, right: 16, top: 32, bottom: 48, containLabel: true };
  if (choice.kind === "price") {
    const sorted = [...input.rows].sort((a, b) => String(a[choice.date]).localeCompare(String(b[choice.date])));
    const closes = sorted.map((row) => asNumber(row[choice.close]));
    const windows = MA_WINDOWS.filter((window) => window < closes.length);
    return {
      tooltip: { trigger: "axis" },
      legend: { top: 0 },
      grid,
      xAxis: { type: "category", data: sorted.map((row) => String(row[choice.date])) },
      yAxis: { type: "value", scale: true },
      dataZoom: [{ type: "inside" }],
      series: [
        { name: "close", type: "line", data: closes, showSymbol: false, lineStyle: { width: 2 } },
        ...windows.map((window) => ({
          name: `MA${window}`,
          type: "line",
          data: movingAverage(closes, window),
          showSymbol: false,
          lineStyle: { width: 1 },
        })),
      ],
    };
  }
  if (choice.kind === "bars") {
    const column = input.columns[choice.value] ?? "";
    const unit = unitOf(column);
    return {
      tooltip: { trigger: "axis", valueFormatter: (value: number) => formatWithUnit(value, unit, locale) },
      grid,
      xAxis: { type: "category", data: input.rows.map((row) => String(row[choice.label])), axisLabel: { rotate: 35, interval: 0 } },
      yAxis: { type: "value", name: column, axisLabel: { formatter: (value: number) => formatWithUnit(value, unit, locale) } },
      series: [{ name: column, type: "bar", data: input.rows.map((row) => asNumber(row[choice.value])) }],
    };
  }
  if (choice.kind === "histogram") {
    const column = input.columns[choice.value] ?? "";
    const unit = unitOf(column);
    const bins = histogram(input.rows.map((row) => asNumber(row[choice.value])).filter((value) => value !== null));
    const label = (value: number) => formatWithUnit(value, unit, locale);
    return {
      tooltip: { trigger: "axis" },
      grid,
      xAxis: { type: "category", name: column, data: bins.map((bin) => `${label(bin.from)} – ${label(bin.to)}`), axisLabel: { rotate: 35 } },
      yAxis: { type: "value", minInterval: 1 },
      series: [{ name: column, type: "bar", barCategoryGap: "2%", data: bins.map((bin) => bin.count) }],
    };
  }
  return null;
}

interface ResultChartProps {
  result: ChartInput;
  unitOf: (column: string) => StoredUnit | undefined;
}

/** The chart suited to a result (see chooseChart); nothing when no chart helps. */
export function ResultChart({ result: input, unitOf }: ResultChartProps) {
  const { t, i18n } = useTranslation();
  const locale: Locale = i18n.language === "zh" ? "zh" : "en";
  const choice = useMemo(() => chooseChart(input), [input]);
  const chart = useMemo(() => option(choice, input, unitOf, locale), [choice, input, unitOf, locale]);
  if (!chart) return null;
  const title =
    choice.kind === "price"
      ? t("chart.price", { name: choice.title })
      : choice.kind === "bars"
        ? t("chart.bars", { column: input.columns[choice.value] })
        : t("chart.histogram", { column: input.columns[choice.kind === "histogram" ? choice.value : 0] });
  return (
    <figure className="chart" data-testid="result-chart" data-kind={choice.kind}>
      <figcaption className="small">{title}</figcaption>
      <EChart option={chart} />
    </figure>
  );
}
