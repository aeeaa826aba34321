/**
 * A job's log as GitHub keeps it: step output line by line, workflow commands read from it
 * (`::add-mask::value` registers a mask and is not shown), every registered value (the job's
 * secrets, its token, what steps masked) replaced by `***` in every line written after.
 */
export type JobLog = {
  /** Output of a step's process, in chunks as they come. */
  write(chunk: string): void;
  /** A whole line from the runner itself. */
  line(text: string): void;
  addMask(value: string): void;
  /** Ends a partial last line (a step ended). */
  flush(): void;
  text(): string;
  masks(): readonly string[];
};

export function createJobLog(): JobLog {
  const lines: string[] = [];
  const masks = new Set<string>();
  let partial = "";
  const mask = (text: string): string => {
    let out = text;
    // Longest first, so a value that contains another is masked whole.
    for (const value of [...masks].sort((a, b) => b.length - a.length)) out = out.replaceAll(value, "***");
    return out;
  };
  const take = (text: string): void => {
    const command = /^::add-mask::(.*)$/.exec(text);
    if (command) {
      log.addMask(command[1] ?? "");
      return;
    }
    lines.push(mask(text));
  };
  const log: JobLog = {
    write(chunk) {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      for (const part of parts) take(part.replace(/\r$/, ""));
    },
    line(text) {
      log.flush();
      lines.push(mask(text));
    },
    addMask(value) {
      if (value.trim() !== "") masks.add(value);
    },
    flush() {
      if (partial !== "") take(partial);
      partial = "";
    },
    text: () => lines.join("\n"),
    masks: () => [...masks],
  };
  return log;
}
