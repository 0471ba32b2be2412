import {
  type ColumnDef,
  type SortingState,
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
} from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";

export type Cell = string | number | boolean | null | Cell[] | { [key: string]: Cell };
export type Row = Cell[];

export const MAX_RENDERED_ROWS = 500;

const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 4 });

export function formatCell(value: Cell): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : numberFormat.format(value);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function compareCells(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

interface DataTableProps {
  columns: string[];
  rows: Row[];
  /** Accessible name, used by tests and screen readers. */
  label: string;
}

export function DataTable({ columns, rows, label }: DataTableProps) {
  const { t } = useTranslation();
  const [sorting, setSorting] = useState<SortingState>([]);
  const shown = useMemo(() => rows.slice(0, MAX_RENDERED_ROWS), [rows]);
  const columnDefs = useMemo<ColumnDef<Row, Cell | undefined>[]>(
    () =>
      columns.map((name, index) => ({
        id: `${index}:${name}`,
        header: name,
        // NULL becomes undefined so that `sortUndefined` keeps it last in both directions.
        accessorFn: (row: Row) => row[index] ?? undefined,
        sortUndefined: "last",
        sortingFn: (left, right, id) => compareCells(left.getValue<Cell>(id), right.getValue<Cell>(id)),
        cell: (info) => formatCell(info.getValue() ?? null),
      })),
    [columns],
  );
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Table returns new functions each render by design
  const table = useReactTable({
    data: shown,
    columns: columnDefs,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });

  if (rows.length === 0) return <p className="muted">{t("common.noRows")}</p>;

  return (
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
                const value = cell.getValue<Cell | undefined>() ?? null;
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
      {rows.length > shown.length && (
        <p className="muted">{t("common.showingFirst", { shown: shown.length, total: rows.length })}</p>
      )}
    </div>
  );
}
