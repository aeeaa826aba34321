import { ProbotOctokit } from "probot";
import { startEmulator, type Emulator, type EmulatorOptions } from "./start-emulator.ts";

/** A client the way loom's app builds one, pointed at the emulator (retries and throttling off). */
export type Client = InstanceType<typeof ProbotOctokit>;

const TestOctokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });

export function createClient(emulator: Emulator, token = "x"): Client {
  return new TestOctokit({ auth: { token }, baseUrl: emulator.url });
}

/** The status of a failed Octokit request (its RequestError), or null when it succeeded. */
export async function statusOf(
  promise: Promise<unknown>,
): Promise<{ status: number; message: string } | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    const e = error as { status?: number; message?: string; response?: { data?: { message?: string } } };
    return { status: e.status ?? 0, message: e.response?.data?.message ?? e.message ?? "" };
  }
}

export async function startWithClient(
  options: EmulatorOptions = {},
): Promise<{ emulator: Emulator; octokit: Client }> {
  const emulator = await startEmulator(options);
  return { emulator, octokit: createClient(emulator) };
}
