import assert from "node:assert/strict";
import { test } from "node:test";
import { effectRetryAt } from "../../app/engine/effect-retry-at.ts";
import { EffectError, MAX_EFFECT_ATTEMPTS } from "../../app/github/effect-context.ts";
import { WriteLimitWaitError } from "../../app/github/write-limiter.ts";

const NOW = 1_000_000;
const retryable = new EffectError("dispatching loom.yml: 502 Bad Gateway", { status: 502, retryable: true });
const refused = new EffectError("dispatching loom.yml: 422 Unprocessable", { status: 422, retryable: false });

test("a retryable failure waits 5 s, doubling up to 5 minutes, and is given up after the last attempt", () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((attempts) => effectRetryAt(retryable, attempts, NOW)! - NOW),
    [5_000, 10_000, 20_000, 40_000],
  );
  assert.equal(effectRetryAt(retryable, MAX_EFFECT_ATTEMPTS, NOW), null);
  assert.equal(effectRetryAt(refused, 1, NOW), null, "GitHub's refusal for good is not retried");
});

test("waiting for GitHub's write limit runs the effect when the limit lets it, and is never given up", () => {
  const wait = new WriteLimitWaitError(600_000);
  assert.equal(effectRetryAt(wait, 1, NOW), NOW + 600_000);
  assert.equal(effectRetryAt(wait, MAX_EFFECT_ATTEMPTS + 3, NOW), NOW + 600_000);
  const wrapped = new EffectError("creating check run loom: a: network error", {
    status: null,
    retryable: true,
    cause: wait,
  });
  assert.equal(
    effectRetryAt(wrapped, MAX_EFFECT_ATTEMPTS, NOW),
    NOW + 600_000,
    "also behind an effect's own error",
  );
});
