// Text from the network on a terminal: a request's path in the request log, a target's answer in
// the suite's summary. Anyone who can reach the mock or stands behind a target chooses it, and
// must not write to the terminal of whoever reads it.
/**
 * What a terminal would act on instead of showing: C0 and C1 controls (ESC starts a sequence that
 * clears the screen, sets the title or the clipboard; CR and LF forge lines), DEL, the line and
 * paragraph separators and the bidirectional overrides and isolates (which reorder what follows).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, "g");

/**
 * `text` as one line can show it: each character a terminal would act on written as its escape
 * (`\x1b`, `\u202e`), line breaks too, so nothing it holds can forge a line of its own.
 */
export function printable(text: string): string {
  if (!UNPRINTABLE.test(text)) return text;
  return text.replace(UNPRINTABLE_ALL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}
