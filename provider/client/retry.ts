/** Only "safe" endpoints repeat: a timeout or 500 from add/order does not say nothing was bought. */
import { mayRetry } from "./answers";
import { EdisApiError } from "./errors";

export interface RetryPolicy {
    /** Total attempts for a safe endpoint, including the first. */
    maxAttempts: number;
    /** First backoff in milliseconds; doubles each attempt. */
    baseDelayMs: number;
    maxDelayMs: number;
    /** Caps Retry-After: a broken header must not park a deployment for hours. */
    maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
    maxAttempts: 4,
    baseDelayMs: 500,
    maxDelayMs: 8_000,
    maxRetryAfterMs: 60_000,
};

/** Delta-seconds or an HTTP date, in seconds. */
export function parseRetryAfter(header: string | null | undefined, now = Date.now()): number | undefined {
    if (!header) return undefined;
    const trimmed = header.trim();
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    return Math.max(0, (date - now) / 1000);
}

/** The wait before attempt `attempt + 1`, or undefined to give up. */
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
