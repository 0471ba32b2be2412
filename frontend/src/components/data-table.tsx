import {
  type ColumnDef,
  type SortingState,
  flexRender,
  getCoreRowModel,
  getPaginationRowModel,
  getSortedRowModel,
  useReactTable,
} from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";

import { formatWithUnit, type Locale, type StoredUnit } from "@/lib/units";

export type Cell = unknown;
export type Row = readonly Cell[];

export const PAGE_SIZE = 20;

export function formatCell(value: Cell, unit?: StoredUnit, locale: Locale = "en"): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return formatWithUnit(value, unit, locale);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function compareCells(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

interface DataTableProps {
  columns: readonly string[];
  rows: readonly Row[];
  /** Accessible name, used by tests and screen readers. */
  label: string;
  /** The stored unit of a column (from the semantic model); numbers are shown in readable units. */
  unitOf?: (column: string) => StoredUnit | undefined;
  /** Where the server offers all the rows as CSV. */
  csvHref?: string;
}

export function DataTable({ columns, rows, label, unitOf, csvHref }: DataTableProps) {
  const { t, i18n } = useTranslation();
  const locale: Locale = i18n.language === "zh" ? "zh" : "en";
  const [sorting, setSorting] = useState<SortingState>([]);
  const data = useMemo(() => [...rows], [rows]);
  const columnDefs = useMemo<ColumnDef<Row, Cell>[]>(
    () =>
      columns.map((name, index) => {
        const unit = unitOf?.(name);
        return {
          id: `${index}:${name}`,
          header: name,
          // NULL becomes undefined so that `sortUndefined` keeps it last in both directions.
          accessorFn: (row: Row) => row[index] ?? undefined,
          sortUndefined: "last",
          sortingFn: (left, right, id) => compareCells(left.getValue<Cell>(id), right.getValue<Cell>(id)),
          cell: (info) => formatCell(info.getValue(), unit, locale),
        };
      }),
    [columns, unitOf, locale],
  );
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns new functions each render by design
  const table = useReactTable({
    data,
    columns: columnDefs,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getPaginationRowModel: getPaginationRowModel(),
    initialState: { pagination: { pageSize: PAGE_SIZE } },
    autoResetPageIndex: true,
  });

  if (rows.length === 0) return <p className="muted">{t("common.noRows")}</p>;
  const { pageIndex } = table.getState().pagination;
  const pages = table.getPageCount();

  return (
    <div className="stack">
      <div className="table-wrap">
        <table className="data-table" aria-label={label}>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  return (
                    <th
                      key={header.id}
                      aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : "none"}
                    >
                      <button type="button" onClick={header.column.getToggleSortingHandler()}>
                        {flexRender(header.column.columnDef.header, header.getContext())}
                        <span className="sort-mark">{sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}</span>
                      </button>
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id}>
                {row.getVisibleCells().map((cell) => {
                  const value = cell.getValue<Cell>() ?? null;
                  const className = value === null ? "null" : typeof value === "number" ? "num" : undefined;
                  return (
                    <td key={cell.id} className={className}>
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="row pager">
        {pages > 1 && (
          <>
            <button type="button" onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>
              {t("table.previous")}
            </button>
            <span className="small" data-testid="table-page">
              {t("table.page", { page: pageIndex + 1, pages })}
            </span>
            <button type="button" onClick={() => table.nextPage()} disabled={!table.getCanNextPage()}>
              {t("table.next")}
            </button>
          </>
        )}
        <span className="muted small">{t("common.rows", { count: rows.length })}</span>
        {csvHref && (
          <a className="button push-right" href={csvHref} download data-testid="csv-download">
            {t("table.csv")}
          </a>
        )}
      </div>
    </div>
  );
}
