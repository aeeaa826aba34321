import { z } from "zod";

/**
 * The reference CLI's `sandbox` settings (cosmix/loom `loom/src/models/stage/types.rs`:
 * `StageSandboxConfig`, `FilesystemConfig`, `NetworkConfig`, `LinuxConfig`, `PermissionMode`; the
 * plan-level `SandboxConfig` in `loom/src/plan/schema/types.rs`). Every field is optional here: the
 * reference's defaults only matter where the sandbox is enforced, and what loom does with each field
 * is in `field-support.ts`. Unknown keys are kept and reported by the validator.
 */

/** Claude Code permission modes as the reference writes them (kebab-case). */
export const PERMISSION_MODES = ["default", "accept-edits", "auto", "plan", "bypass-permissions"] as const;
export const PermissionMode = z.enum(PERMISSION_MODES);
export type PermissionMode = z.infer<typeof PermissionMode>;

const Strings = z.array(z.string());

export const FilesystemConfig = z
  .object({ deny_read: Strings.optional(), deny_write: Strings.optional(), allow_write: Strings.optional() })
  .loose();
export type FilesystemConfig = z.infer<typeof FilesystemConfig>;

export const NetworkConfig = z
  .object({
    allowed_domains: Strings.optional(),
    additional_domains: Strings.optional(),
    allow_local_binding: z.boolean().optional(),
    /** A list of socket paths, or `false` (the reference reads either boolean as an empty list). */
    allow_unix_sockets: z.union([z.boolean(), Strings]).optional(),
    allow_all_unix_sockets: z.boolean().optional(),
  })
  .loose();
export type NetworkConfig = z.infer<typeof NetworkConfig>;

export const LinuxConfig = z.object({ enable_weaker_nested: z.boolean().optional() }).loose();
export type LinuxConfig = z.infer<typeof LinuxConfig>;

/** `sandbox:` under `loom:` (defaults for every stage) or on a stage (overrides). */
export const SandboxConfig = z
  .object({
    enabled: z.boolean().optional(),
    auto_allow: z.boolean().optional(),
    allow_unsandboxed_escape: z.boolean().optional(),
    excluded_commands: Strings.optional(),
    filesystem: FilesystemConfig.optional(),
    network: NetworkConfig.optional(),
    linux: LinuxConfig.optional(),
    permission_mode: PermissionMode.optional(),
  })
  .loose();
export type SandboxConfig = z.infer<typeof SandboxConfig>;
