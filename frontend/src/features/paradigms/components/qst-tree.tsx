export interface TreeNode {
  text: string;
  children: TreeNode[];
}

/** The server's outline (two spaces a level, one node a line) as a tree. */
export function treeFromOutline(lines: readonly string[]): TreeNode[] {
  const roots: TreeNode[] = [];
  const path: TreeNode[] = [];
  for (const line of lines) {
    const depth = Math.floor((line.length - line.trimStart().length) / 2);
    const node: TreeNode = { text: line.trim(), children: [] };
    path.length = Math.min(path.length, depth);
    (path.at(-1)?.children ?? roots).push(node);
    path.push(node);
  }
  return roots;
}

function Node({ node }: { node: TreeNode }) {
  const [label, literal] = node.text.split("  = ");
  const text = (
    <>
      <span className="qst-label">{label}</span>
      {literal !== undefined && <span className="qst-literal"> = {literal}</span>}
    </>
  );
  if (node.children.length === 0) return <li>{text}</li>;
  return (
    <li>
      <details open>
        <summary>{text}</summary>
        <ul>
          {node.children.map((child, index) => (
            <Node key={index} node={child} />
          ))}
        </ul>
      </details>
    </li>
  );
}

/** A paradigm's Query Structure Tree, each inner node folding open and shut. */
export function QstTree({ outline, label }: { outline: readonly string[]; label: string }) {
  return (
    <ul className="qst-tree" aria-label={label} data-testid="qst-tree">
      {treeFromOutline(outline).map((node, index) => (
        <Node key={index} node={node} />
      ))}
    </ul>
  );
}
