// Text a target sent, in the reports the suite writes: shown as text, never
// read as markup. One place for the matrix and the side-by-side comparison.

/** Text in HTML (an element's content or an attribute's value). */
export const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * Text in a cell of a Markdown table, shown as it is: markup a target sent (HTML, links,
 * emphasis) is escaped, never rendered, and the cell stays one cell of one row.
 */
export const cell = (s: string) =>
  s
    .replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!)
    .replace(/[\\`*_[\]|~#!()]/g, "\\$&")
    .replace(/\s*\n\s*/g, " ");
