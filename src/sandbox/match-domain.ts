/**
 * Domain patterns as the plan's `sandbox.network` and `.github/loom.yml`'s `session.network.allow`
 * write them: a host name (`api.github.com`) matches itself; `*.example.com` matches every
 * subdomain of example.com (not example.com itself); `*` alone matches every host. Case and a
 * trailing dot do not matter.
 */

/** A host name or pattern in the form it is compared in. */
export function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, "");
}

/**
 * Whether `host` (a name or an IP literal, as a client asked for it) on `port` is allowed by
 * `pattern`. A pattern may end in `:<port>` (loom writes the model gateway's endpoint so, `[::1]:8080`
 * for IPv6): then only that port matches.
 */
export function matchesDomain(pattern: string, host: string, port?: number): boolean {
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(normalizeDomain(pattern));
  if (withPort !== null && port !== Number(withPort[2])) return false;
  const p = (withPort?.[1] ?? normalizeDomain(pattern)).replace(/^\[(.*)\]$/, "$1");
  const h = normalizeDomain(host).replace(/^\[(.*)\]$/, "$1");
  if (p === "*") return true;
  if (p.startsWith("*.")) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return p === h;
}

/** Whether every host `inner` matches is matched by `outer` too (`*.a.com` covers `x.a.com` and `*.x.a.com`). */
export function coversDomain(outer: string, inner: string): boolean {
  const o = normalizeDomain(outer);
  const i = normalizeDomain(inner);
  if (o === "*") return true;
  if (i === "*") return false;
  if (o.startsWith("*.")) return i.endsWith(o.slice(1)) && i.length > o.length - 1;
  return o === i;
}
