/**
 * Why the reference CLI refuses a sandbox network domain (`validate_domain_pattern` in
 * `loom/src/plan/schema/validation.rs`), or null: it must not be empty, must hold no space, and
 * may use only letters, digits, `.`, `-` and the `*` wildcard (`*.example.com`).
 */
export function describeDomainProblem(domain: string): string | null {
  if (domain.length === 0) return "domain cannot be empty";
  if (domain.includes(" ")) return "domain cannot contain spaces";
  // Rust's char::is_alphanumeric: Unicode alphabetic or numeric.
  if (!/^[\p{Alphabetic}\p{N}.*-]*$/u.test(domain)) return "invalid characters in domain";
  return null;
}
