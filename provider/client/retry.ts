/**
 * The retry policy, in one place.
 *
 * - Only endpoints marked `retry: "safe"` are ever repeated (reads, and cancel/product, which is idempotent:
 *   a second cancel of the same service changes nothing). add/order and add/upgrade spend money and are
 *   never repeated, whatever the failure: a timeout or a 500 there does not tell us the order was not placed.
 * - Only failures that say nothing about the request are repeated (answers.ts `mayRetry`: 429, 5xx, no answer, "try again").
 * - The wait is exponential with full jitter, capped; a `Retry-After` from the server replaces it (itself
 *   capped, so a hostile or broken header cannot park a deployment for hours).
 */
import { mayRetry } from "./answers";
import { EdisApiError } from "./errors";

export interface RetryPolicy {
    /** Total attempts for a safe endpoint, including the first. */
    maxAttempts: number;
    /** First backoff in milliseconds; doubles each attempt. */
    baseDelayMs: number;
    /** Upper bound of one computed backoff. */
    maxDelayMs: number;
    /** Upper bound of a server-requested Retry-After wait. */
    maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
    maxAttempts: 4,
    baseDelayMs: 500,
    maxDelayMs: 8_000,
    maxRetryAfterMs: 60_000,
};

/** Parses a Retry-After header: delta-seconds or an HTTP date. Returns seconds, or undefined. */
export function parseRetryAfter(header: string | null | undefined, now = Date.now()): number | undefined {
    if (!header) return undefined;
    const trimmed = header.trim();
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    return Math.max(0, (date - now) / 1000);
}

/** The wait before attempt `attempt + 1` (counting from 1), or undefined to give up; tests pin the jitter through `random`. */
export function nextDelayMs(
    policy: RetryPolicy,
    error: EdisApiError,
    attempt: number,
    random: () => number = Math.random,
): number | undefined {
    if (!mayRetry(error) || attempt >= policy.maxAttempts) return undefined;
    if (error.retryAfterSeconds !== undefined) {
        return Math.min(error.retryAfterSeconds * 1000, policy.maxRetryAfterMs);
    }
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(random() * ceiling);
}
