import { plainName } from "./text.ts";
import type { BriefPayload, BriefSection } from "./types.ts";

/** What a section says instead when it names something flagged sensitive since it was written. */
export const WITHHELD_SECTION: BriefSection = {
  headline: "Withheld: this section named a sensitive contact or account",
  bodyMarkdown:
    "A contact or account named here has been marked sensitive since this brief was written, " +
    "so the section is withheld. The next brief is written without it.",
  refs: [],
};

/**
 * The payload with every section that names one of `sensitiveNames` replaced by
 * WITHHELD_SECTION. A brief is written without the names that are sensitive at the time
 * (brief-facts.ts); this covers names flagged afterwards, before the next brief. A section
 * "names" one when any of its text (headline, body, refs) contains the name or the form the
 * prose writes it in (`plainName`), ignoring case, for names of 3 or more characters: the rule
 * the generators are held to (validate.ts). A whole section goes, not just the name: its
 * figures, a shortened headline name ("Golden Gr…") or a ref's key would still point at it.
 */
export function withholdSensitive(
  payload: BriefPayload,
  sensitiveNames: readonly string[],
): BriefPayload {
  const needles = new Set<string>();
  for (const name of sensitiveNames) {
    for (const form of [name, plainName(name)]) {
      const n = form.trim().toLowerCase();
      if (n.length >= 3) needles.add(n);
    }
  }
  if (needles.size === 0) return payload;
  const keep = (section: BriefSection): BriefSection => {
    const text = JSON.stringify(section).toLowerCase();
    for (const n of needles) if (text.includes(n)) return WITHHELD_SECTION;
    return section;
  };
  return {
    mainDriver: keep(payload.mainDriver),
    riskSignal: keep(payload.riskSignal),
    recommendedAction: keep(payload.recommendedAction),
  };
}
