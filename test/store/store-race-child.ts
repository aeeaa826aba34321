import type { OpenStoreOptions } from "../../app/store/open-store.ts";
import { openStore } from "../../app/store/open-store.ts";
import type { RaceOptions } from "./store-race-worker.ts";
import { runRace } from "./store-race-worker.ts";

/** Child process entry: `node store-race-child.ts '<{"options":…,"race":…}>'`; prints its RaceReport as JSON. */
const { options, race } = JSON.parse(process.argv[2] ?? "{}") as {
  options: OpenStoreOptions;
  race: RaceOptions;
};
const store = await openStore(options);
try {
  process.stdout.write(`${JSON.stringify(await runRace(store, race))}\n`);
} finally {
  await store.close();
}
