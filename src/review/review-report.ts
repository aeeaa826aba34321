import { z } from "zod";

/**
 * The `## Code Review` section a session ends its final message with when its stage declares
 * `code_review`: one entry per dimension it addressed, with its findings. Model output: bounded
 * and read as data, never as instructions.
 */
export const ReviewEntry = z.object({
  dimension: z.string().trim().min(1).max(200),
  findings: z.string().max(2000),
});
export type ReviewEntry = z.infer<typeof ReviewEntry>;

export const ReviewReport = z.array(ReviewEntry).max(50);
export type ReviewReport = z.infer<typeof ReviewReport>;

/** The heading the prompt asks for; any level, any case, a few words after it (`Code Review Report`). */
const REPORT_HEADING = /^#{1,6}\s*[*_]{0,2}code review\b[^#\n]{0,40}$/i;
const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
/** `- [x] **security**: findings`, `- security: findings`, `* **Testing** — findings`. */
const BULLET = /^\s*[-*+]\s+(?:\[[ xX]\]\s+)?(.+?)\s*(?::|—|–|\s-\s)\s*(.*)$/;

/** Where a heading's dimension name ends and its findings begin: `### Security: none found`. */
const NAME_END = /\s*(?::|—|–|\s-\s)\s*/;

function cleanName(name: string): string {
  return name
    .replaceAll(/[*_`]/g, "")
    .replace(/^\s*(?:\d+[.)]|\[[ xX]\])\s*/, "")
    .replace(/:\s*$/, "")
    .trim();
}

/** A heading's text as a dimension and the findings written on the same line, if any. */
function splitHeading(text: string): { dimension: string; findings: string[] } {
  const cut = NAME_END.exec(text);
  if (cut === null) return { dimension: cleanName(text), findings: [] };
  const rest = text.slice(cut.index + cut[0].length).trim();
  return { dimension: cleanName(text.slice(0, cut.index)), findings: rest === "" ? [] : [rest] };
}

/** Whether `text` holds a `Code Review` heading (a report, possibly empty). */
export function hasReviewReport(text: string): boolean {
  return text.split("\n").some((line) => REPORT_HEADING.test(line.trim()));
}

/**
 * The review entries of the last `Code Review` section of `text` (the session's final message):
 * `### <dimension>` headings with their text, or `- **<dimension>**: <findings>` bullets. Empty when
 * there is no such section.
 */
export function parseReviewReport(text: string | null): ReviewReport {
  if (text === null) return [];
  const lines = text.replaceAll("\r", "").split("\n");
  const start = lines.findLastIndex((line) => REPORT_HEADING.test(line.trim()));
  if (start === -1) return [];
  const level = HEADING.exec(lines[start]?.trim() ?? "")?.[1]?.length ?? 2;
  const body = lines.slice(start + 1);
  // Headings (`### security`) or bullets (`- **security**: …`), whichever comes first; under a
  // heading, bullets are findings.
  const first = body.find((line) => line.trim() !== "")?.trim() ?? "";
  const byHeading = HEADING.test(first);
  const entries: { dimension: string; findings: string[] }[] = [];
  for (const raw of body) {
    const line = raw.trimEnd();
    if (/^\s*(?:```|~~~)/.test(line)) break; // a fence closes a report quoted in a code block
    const heading = HEADING.exec(line.trim());
    if (heading !== null) {
      if ((heading[1]?.length ?? 0) <= level) break; // the section ended
      if (byHeading) {
        entries.push(splitHeading(heading[2] ?? ""));
        continue;
      }
    }
    const bullet = byHeading || /^\s/.test(line) ? null : BULLET.exec(line);
    if (bullet !== null && cleanName(bullet[1] ?? "").length <= 60) {
      entries.push({ dimension: cleanName(bullet[1] ?? ""), findings: [bullet[2] ?? ""] });
      continue;
    }
    entries.at(-1)?.findings.push(line);
  }
  const parsed = ReviewReport.safeParse(
    entries
      .filter((e) => e.dimension !== "")
      .slice(0, 50)
      .map((e) => ({
        dimension: e.dimension.slice(0, 200),
        findings: e.findings.join("\n").trim().slice(0, 2000),
      })),
  );
  return parsed.success ? parsed.data : [];
}

/** What the prompt's example report holds where the findings go. */
export const FINDINGS_PLACEHOLDER = "<what you checked and found>";

/** Findings that say the dimension was not looked at. */
const NOT_ADDRESSED = /^(?:not (?:covered|reviewed|addressed|checked)|skipped|todo|tbd|n\/a)\b/i;

/** Whether an entry's name is `want`, alone or followed by a mark (`Security ✅`, `Security (OWASP)`). */
function namesDimension(name: string, want: string): boolean {
  const have = name.toLowerCase();
  return have === want || (have.startsWith(want) && !/[\p{L}\p{N}]/u.test(have.charAt(want.length)));
}

/**
 * The entry that addresses `dimension` with findings, if any: names compared without case, and a
 * mark after the name allowed.
 */
export function findReviewEntry(report: ReviewReport, dimension: string): ReviewEntry | undefined {
  const want = dimension.trim().toLowerCase();
  return report.find(
    (e) =>
      namesDimension(e.dimension, want) &&
      e.findings !== "" &&
      e.findings !== FINDINGS_PLACEHOLDER &&
      !NOT_ADDRESSED.test(e.findings),
  );
}
