/** What a person asked for: done (with a line for the reply) or refused with the reason. */
export type ActionResult = { ok: true; text: string } | { ok: false; reason: string };
