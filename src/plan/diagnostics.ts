import type { Diagnostic, Location } from "./plan.ts";

/** Collects errors and warnings in one pass; every check reports into one of these. */
export type Diagnostics = {
  readonly errors: Diagnostic[];
  readonly warnings: Diagnostic[];
  error(message: string, at: Location, stage?: string): void;
  warning(message: string, at: Location, stage?: string): void;
};

export function createDiagnostics(): Diagnostics {
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const make = (message: string, at: Location, stage?: string): Diagnostic =>
    stage === undefined
      ? { message, line: at.line, column: at.column }
      : { message, line: at.line, column: at.column, stage };
  return {
    errors,
    warnings,
    error: (message, at, stage) => void errors.push(make(message, at, stage)),
    warning: (message, at, stage) => void warnings.push(make(message, at, stage)),
  };
}

/** Diagnostics in file order (line, then column), keeping the order of checks for ties. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  return [...list].sort((a, b) => a.line - b.line || a.column - b.column);
}
