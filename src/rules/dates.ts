// The date formats a target may write, and reading them as month/day/year. No
// imports: the proxy reads dates too, and must not load the test runner.
export type DateFormat = "mdy" | "iso" | "dmy";

export function dateFormatOf(value: unknown): DateFormat | "other" | undefined {
  if (typeof value !== "string") return undefined;
  if (/^\d{1,2}\/\d{1,2}\/\d{4}$/.test(value)) return "mdy";
  if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(value)) return "iso";
  if (/^\d{1,2}-\d{1,2}-\d{4}$/.test(value)) return "dmy";
  return "other";
}

/** A date in one of the accepted formats, as month/day/year; other values stay as they are. */
export function asMonthDayYear(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (dateFormatOf(value) === "iso" && iso) return `${iso[2]}/${iso[3]}/${iso[1]}`;
  const dmy = /^(\d{1,2})-(\d{1,2})-(\d{4})$/.exec(value);
  if (dmy) return `${dmy[2]!.padStart(2, "0")}/${dmy[1]!.padStart(2, "0")}/${dmy[3]}`;
  return value;
}
