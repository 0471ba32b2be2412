import { BarChart, LineChart } from "echarts/charts";
import { DataZoomComponent, GridComponent, LegendComponent, TooltipComponent } from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";
import ReactEChartsCore from "echarts-for-react/esm/core";

// Only the charts and parts the app draws are bundled; SVG renders crisply on any screen.
echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, LegendComponent, DataZoomComponent, SVGRenderer]);

// Drawn at once, without animation: less motion, and a screenshot shows the finished chart.
export function EChart({ option, height = 320 }: { option: object; height?: number }) {
  return <ReactEChartsCore echarts={echarts} option={{ animation: false, ...option }} notMerge style={{ height, width: "100%" }} opts={{ renderer: "svg" }} />;
}
