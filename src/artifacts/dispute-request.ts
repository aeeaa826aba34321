import { z } from "zod";
import { MAX_ACCEPTANCE_COMMAND_LENGTH } from "../plan/check-stage-fields.ts";

/** The longest reason a dispute carries (the reference's `--reason`: 500 characters). */
export const MAX_DISPUTE_REASON = 500;

/**
 * What a session writes to dispute one of its stage's acceptance criteria (the reference's `loom
 * stage dispute-criteria <stage> --criterion-index <n> --reason <text>`): a JSON file the action
 * names in the prompt (`dispute.json`, outside the checkout). The criterion is named by its
 * 0-based index in the stage's `acceptance` list, as in the reference, or by its exact command.
 * Untrusted: the action checks it against the plan and quotes the reason only as the session's.
 */
export const DisputeRequest = z
  .object({
    criterion_index: z.number().int().min(0).max(999).optional(),
    criterion: z.string().min(1).max(MAX_ACCEPTANCE_COMMAND_LENGTH).optional(),
    reason: z.string().trim().min(1).max(MAX_DISPUTE_REASON),
  })
  .refine((d) => d.criterion_index !== undefined || d.criterion !== undefined, {
    message: "name the criterion: criterion_index (0-based) or criterion (its exact command)",
  });
export type DisputeRequest = z.infer<typeof DisputeRequest>;

/**
 * The dispute as `loom-result` carries it: the criterion (0-based index and its command as the
 * plan writes it) and the session's reason (redacted). Present only when that criterion failed.
 */
export const StageDispute = z.object({
  criterion_index: z.number().int().min(0).max(999),
  criterion: z.string().min(1).max(MAX_ACCEPTANCE_COMMAND_LENGTH),
  reason: z.string().min(1).max(MAX_DISPUTE_REASON),
});
export type StageDispute = z.infer<typeof StageDispute>;
