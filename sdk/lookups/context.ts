/**
 * What every lookup of the SDK shares: the account the program's `edis:*` config names (environment fallbacks as
 * in the provider; the core keeps one per account, provider/lookups/account.ts), the Output forms, and the count of
 * lookups in flight that a unit test's `account.stop()` waits for.
 */
import * as pulumi from "@pulumi/pulumi";
import { resolveConfig } from "../../provider/config";
import { LookupAccount, lookupAccountFor } from "../../provider/lookups/account";

export { LookupError } from "../../provider/lookups/account";

/** Every field of a lookup's arguments as a pulumi.Input, for the `...Output` forms. */
export type OutputArgs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/**
 * An Output form's signature: the same required arguments as the Promise form (optional only when the
 * Promise form has none), each a `pulumi.Input`.
 */
export type OutputForm<A, R> = {} extends A
    ? (args?: OutputArgs<A>, opts?: pulumi.InvokeOptions) => pulumi.Output<R>
    : (args: OutputArgs<A>, opts?: pulumi.InvokeOptions) => pulumi.Output<R>;

/**
 * The Output form of a lookup: waits for its arguments, then runs the Promise form. The callback hands back an
 * Output of the Promise, not the Promise itself: with @pulumi/pulumi 3.2xx, an `apply` whose Promise rejects, feeding
 * a resource whose outputs are exported, costs the program 20 to 30 s of CPU before it stops (measured with the
 * real CLI: 21 to 28 s against 3 s), while the same rejection through an Output costs nothing.
 */
export function outputOf<A, R>(fn: (args: A, opts?: pulumi.InvokeOptions) => Promise<R>): OutputForm<A, R> {
    const form = (args?: OutputArgs<A>, opts?: pulumi.InvokeOptions): pulumi.Output<R> =>
        pulumi.output(args ?? {}).apply((plain) => pulumi.output(fn(plain as unknown as A, opts))) as unknown as pulumi.Output<R>;
    return form as OutputForm<A, R>;
}

/**
 * A lookup's Promise form: the core's lookup (provider/lookups/) on the program's account. Its arguments are optional
 * only when the core's lookup takes none.
 */
export function promiseOf<R>(core: (account: LookupAccount) => Promise<R>): (args?: Record<string, never>, opts?: pulumi.InvokeOptions) => Promise<R>;
export function promiseOf<A, R>(core: (account: LookupAccount, args: A) => Promise<R>): (args: A, opts?: pulumi.InvokeOptions) => Promise<R>;
export function promiseOf<A, R>(core: (account: LookupAccount, args: A) => Promise<R>): (args: A, opts?: pulumi.InvokeOptions) => Promise<R> {
    return (args) => lookup((account) => core(account, args));
}

/** How many lookups the program has started, and how many of them have not finished. */
const inFlight = { started: 0, pending: 0, whenIdle: [] as Array<() => void> };

/**
 * Runs one lookup on the program's account: counts it while it runs (a unit test's `account.stop()` waits for the program's lookups,
 * sdk/testing.ts), and makes its failure one line of its own words (see asRunError).
 */
export async function lookup<R>(run: (account: LookupAccount) => Promise<R>): Promise<R> {
    inFlight.started++;
    inFlight.pending++;
    try {
        // The account the program's config names; runtime.getConfig reads the raw value (pulumi.Config#get would
        // warn that edis:password is a secret).
        return await run(lookupAccountFor(resolveConfig((key) => pulumi.runtime.getConfig(`edis:${key}`))));
    } catch (e) {
        throw asRunError(e);
    } finally {
        if (--inFlight.pending === 0) for (const resolve of inFlight.whenIdle.splice(0)) resolve();
    }
}

/**
 * Resolves once the program's lookups have all finished, including those that the answers of others start
 * (a plan lookup waits for its location's): no lookup runs, none started over a turn of the event loop, and
 * the SDK has no registration waiting (a resource waits for the lookups that feed its inputs).
 */
export async function lookupsSettled(): Promise<void> {
    const runtime = pulumi.runtime as unknown as { waitForRPCs?: () => Promise<void> };
    for (let seen = -1; ; ) {
        await runtime.waitForRPCs?.();
        if (inFlight.pending > 0) await new Promise<void>((resolve) => inFlight.whenIdle.push(resolve));
        await new Promise((resolve) => setImmediate(resolve));
        if (inFlight.pending === 0 && inFlight.started === seen) return;
        seen = inFlight.started;
    }
}

/**
 * A lookup's failure as the program shows it: one line of its own words, which name the lookup, its argument and
 * what exists. It is a `pulumi.RunError`, which the program host prints as its message alone: no stack trace, no
 * rendering of the error object (whose promise chain the SDK links into it). Its message is not rewritten by what
 * awaited it: the SDK's serializer would prefix `error serializing property "planId"` and so name the input that
 * happened to wait on it (for a failed location, the plan's), not the lookup that failed. The original error is
 * its `cause`.
 */
function asRunError(e: unknown): unknown {
    // (isInstance narrows an Error to never: a RunError has no members of its own.)
    if (!(e instanceof Error) || (pulumi.RunError.isInstance as (o: unknown) => boolean)(e)) return e;
    const own = e.message;
    const failure = new pulumi.RunError(own);
    Object.defineProperty(failure, "message", { configurable: true, enumerable: false, get: () => own, set: () => undefined });
    Object.defineProperty(failure, "cause", { configurable: true, enumerable: false, value: e });
    failure.name = e.name;
    return failure;
}
