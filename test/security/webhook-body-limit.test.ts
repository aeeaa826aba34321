import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createAppProcess } from "../e2e/app-process.ts";

const SECRET = "body-limit-secret";
const MB = 1024 * 1024;

/** Resident memory of a process, from /proc (Linux), in bytes. */
function readRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

function sign(body: Buffer): string {
  return `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
}

type Sent = { status: number; body: string };

/**
 * Posts `size` bytes as a signed webhook, with a `content-length` or chunked (`chunked: true`,
 * 1 MiB chunks). The body is a JSON ping padded with spaces. Resolves with the answer; a server that
 * closes the connection mid-upload after answering still yields its answer.
 */
function post(
  url: string,
  size: number,
  options: { chunked?: boolean; signature?: string } = {},
): Promise<Sent> {
  const json = Buffer.from(JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 }));
  const body = Buffer.alloc(Math.max(size, json.length), 0x20);
  json.copy(body);
  return new Promise((resolve, reject) => {
    let answered: Sent | null = null;
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "ping",
          "x-github-delivery": `delivery-${size}-${options.chunked ? "c" : "l"}`,
          "x-hub-signature-256": options.signature ?? sign(body),
          ...(options.chunked
            ? { "transfer-encoding": "chunked" }
            : { "content-length": String(body.length) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          answered = { status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") };
          resolve(answered);
        });
        res.on("error", () => (answered ? resolve(answered) : undefined));
      },
    );
    req.on("error", (error) => (answered ? resolve(answered) : reject(error)));
    // Bounded: size / 1 MiB writes; a refused upload stops at the first failed write.
    let offset = 0;
    const writeNext = () => {
      while (offset < body.length) {
        const chunk = body.subarray(offset, offset + MB);
        offset += chunk.length;
        if (req.destroyed) return;
        if (!req.write(chunk)) {
          req.once("drain", writeNext);
          return;
        }
      }
      req.end();
    };
    writeNext();
  });
}

describe(
  "webhook bodies over GitHub's 25 MB cap are refused before they are buffered",
  { timeout: 120_000 },
  () => {
    it("the real App answers 413 to 30 MB posts (declared or chunked), stays small, and still takes normal webhooks", async (t) => {
      const dir = mkdtempSync(join(tmpdir(), "loom-body-limit-"));
      const app = createAppProcess({
        githubUrl: "http://127.0.0.1:9",
        webhookSecret: SECRET,
        appId: 1,
        botLogin: "loom[bot]",
        sqlitePath: join(dir, "loom.sqlite"),
        workerId: "body-limit",
        pollMs: 1_000,
        reconcileMs: 60_000,
        cwd: dir,
      });
      t.after(async () => {
        await app.kill();
        rmSync(dir, { recursive: true, force: true });
      });
      await app.start();
      const pid = app.pid;
      assert.ok(pid !== null);

      // A normal signed webhook goes through the guard to Probot, which checks its signature.
      assert.equal((await post(app.webhookUrl, 2_000)).status, 200);
      assert.equal(
        (await post(app.webhookUrl, 2_000, { signature: `sha256=${"0".repeat(64)}` })).status,
        400,
      );
      // A chunked one within the cap too (counted, then handed on).
      assert.equal((await post(app.webhookUrl, 2 * MB, { chunked: true })).status, 200);
      const before = readRss(pid);

      // Six 30 MB signed posts at once (GitHub never sends more than 25 MB), at both webhook URLs:
      // buffered, they would be 180 MB more.
      const root = app.webhookUrl.replace(/\/api\/github\/webhooks$/, "/");
      const urls = [app.webhookUrl, app.webhookUrl, app.webhookUrl, root, root, root];
      const refused = await Promise.all(urls.map((url) => post(url, 30 * MB)));
      for (const answer of refused) {
        assert.equal(answer.status, 413, answer.body);
        assert.match(answer.body, /request body over 26214400 bytes/);
      }
      const grown = readRss(pid) - before;
      assert.ok(grown < 50 * MB, `RSS grew by ${Math.round(grown / MB)} MB`);

      // Without a content-length the bytes are counted: refused once past the cap.
      for (const url of [app.webhookUrl, root]) {
        const answer = await post(url, 30 * MB, { chunked: true });
        assert.equal(answer.status, 413, answer.body);
      }

      // The App still works afterwards.
      assert.equal((await post(app.webhookUrl, 2_000)).status, 200);
      assert.ok(app.running);
    });
  },
);
