import type { ContractVersion } from "./stage-contract.ts";

/** One release of loom: the commit callers pin (the tag `v<version>` points at it) and its contract. */
export type LoomRelease = {
  version: string;
  /** `owner/name` the release was cut for (`npm run release -- <owner/name> <version>`). */
  repository: string;
  /** The release commit: its stage workflows use the action of the commit before it. */
  sha: string;
  contract: ContractVersion;
};

/**
 * Every release of loom, oldest first. `npm run release` adds the new one in its second commit
 * (`addReleaseRow`), when it knows the release commit: keep the rows in this shape.
 */
export const LOOM_RELEASES: readonly LoomRelease[] = [
  {
    version: "0.2.0",
    repository: "loom-dev/loom",
    sha: "618b4c042c1f4f38897e1038dacfcd9be2e23ba6",
    contract: "0.2",
  },
  {
    version: "0.3.0",
    repository: "loom-dev/loom",
    sha: "552299ccaafc3d22a4d460b024aac4dee9b1b15f",
    contract: "0.3",
  },
  {
    version: "0.4.0",
    repository: "loom-dev/loom",
    sha: "fad525f88e1451cb91696747eb1eaaaa8f99e530",
    contract: "0.4",
  },
  {
    version: "0.4.1",
    repository: "loom-dev/loom",
    sha: "760bbfb0e55ece048d4c902fb0ae45fc24b84f7a",
    contract: "0.4",
  },
  {
    version: "0.4.2",
    repository: "loom-dev/loom",
    sha: "920e706e0730aba8c326888ae06b229f7c7da06a",
    contract: "0.4",
  },
];
