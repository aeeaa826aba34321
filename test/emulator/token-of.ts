/** The token of `token X`, `Bearer X`, or git's `Basic base64(user:X)`. */
export function tokenOf(authorization: string): string {
  const basic = /^basic\s+(.+)$/i.exec(authorization)?.[1];
  if (basic) return Buffer.from(basic, "base64").toString("utf8").split(":").slice(1).join(":");
  return /^(?:token|bearer)\s+(.+)$/i.exec(authorization)?.[1]?.trim() ?? "";
}
