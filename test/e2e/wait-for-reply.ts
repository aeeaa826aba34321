import type { CommentRecord } from "../emulator/emulator-state.ts";
import { BOT, type E2E } from "./harness.ts";

/** Waits for loom's reply to the command comment `asked` (a reply's marker names the comment). */
export function waitForReply(e2e: E2E, asked: CommentRecord): Promise<CommentRecord> {
  return e2e.waitFor(`the reply to "${asked.body}"`, () =>
    e2e.emulator.state.comments.find(
      (c) => c.user === BOT && new RegExp(`comment[-:]${asked.id}\\b`).test(c.body) && c.id > asked.id,
    ),
  );
}
