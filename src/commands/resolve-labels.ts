/** What one label event means for one plan; every name is normalized for the plan (`normalizeLabels`). */
export type LabelChange = {
  /** loom's labels on the pull request now, as the event reports them. */
  current: readonly string[];
  /** The labels the plan obeys so far (`state.labels`). */
  obeyed: readonly string[];
  /** Labels whose presence or absence was last set by someone not allowed to steer loom. */
  ignored: readonly string[];
  /** The label this event added or removed, or null when it is not one of this plan's. */
  changed: string | null;
  /** Whether the sender may steer loom. */
  authorized: boolean;
};

/**
 * The labels a plan obeys after a label event. Labels stay level-triggered (the event's full set
 * heals a missed event), except for labels last added or removed by someone without the minimum
 * role: those keep the effect they had before, so a reader's label never takes effect later, when
 * a writer changes some other label and the full set comes along. A writer adding or removing such
 * a label again makes it count.
 */
export function resolveLabels(change: LabelChange): { labels: string[]; ignored: string[] } {
  const ignored = new Set(change.ignored);
  if (change.changed !== null) {
    if (change.authorized) ignored.delete(change.changed);
    else ignored.add(change.changed);
  }
  const current = new Set(change.current);
  const obeyed = new Set(change.obeyed);
  const labels = new Set([...current].filter((label) => !ignored.has(label)));
  for (const label of ignored) if (obeyed.has(label)) labels.add(label);
  // Once the pull request agrees with what is obeyed again, there is nothing left to ignore.
  for (const label of ignored) if (current.has(label) === labels.has(label)) ignored.delete(label);
  return { labels: [...labels].sort(), ignored: [...ignored].sort() };
}
