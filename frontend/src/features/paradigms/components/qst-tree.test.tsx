import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { QstTree, treeFromOutline } from "@/features/paradigms/components/qst-tree";
import { renderWithProviders } from "@/test/render";

const OUTLINE = ["query", "  scope", "    exchange  = SSE", "  order", "    metric  = close", "  limit  = 1"];

describe("QstTree", () => {
  it("nests the outline by its indentation", () => {
    const [root] = treeFromOutline(OUTLINE);
    expect(root?.text).toBe("query");
    expect(root?.children.map((child) => child.text)).toEqual(["scope", "order", "limit  = 1"]);
    expect(root?.children[0]?.children[0]?.text).toBe("exchange  = SSE");
  });

  it("shows labels and literals, inner nodes foldable", () => {
    renderWithProviders(<QstTree outline={OUTLINE} label="QST" />);
    const tree = screen.getByRole("list", { name: "QST" });
    expect(tree.querySelectorAll("details")).toHaveLength(3);
    expect(tree).toHaveTextContent("exchange = SSE");
  });
});
