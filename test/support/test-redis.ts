import { connect } from "node:net";
import { isServiceRequired } from "../store/test-database.ts";

/** The Redis the service-backed tests use (`LOOM_TEST_REDIS_URL`). */
export const TEST_REDIS_URL = process.env["LOOM_TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379";

/**
 * Why the Redis tests of `file` cannot run (printed, and given to `test`'s `skip`), or undefined
 * when Redis answers PING. Throws instead when Redis is required (`LOOM_REQUIRE_REDIS` or `CI`).
 */
export async function findRedisSkipReason(file: string, url = TEST_REDIS_URL): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  const reason = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(5_000, () => socket.destroy(new Error("timed out")));
    socket.once("error", (error) => resolve(`${url}: ${error.message}`));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.end();
      resolve(data.toString().startsWith("+PONG") ? undefined : `${url} answered ${data.toString().trim()}`);
    });
  });
  if (reason === undefined) return undefined;
  if (isServiceRequired("REDIS"))
    throw new Error(`Redis is required here (LOOM_REQUIRE_REDIS or CI is set): ${reason}`);
  console.warn(`${file}: Redis tests skipped: ${reason}`);
  return `Redis unreachable (${reason})`;
}
