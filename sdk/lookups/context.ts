/** What SDK lookups share: the program's account, Output forms, and the in-flight count `account.stop()` waits for. */
import * as pulumi from "@pulumi/pulumi";
import { resolveConfig } from "../../provider/config";
import { LookupAccount, lookupAccountFor } from "../../provider/lookups/account";

export { LookupError } from "../../provider/lookups/account";

/** Every field of a lookup's arguments as a pulumi.Input, for the `...Output` forms. */
export type OutputArgs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** An Output form's signature: the Promise form's arguments, each a `pulumi.Input` (optional when none is required). */
export type OutputForm<A, R> = {} extends A
    ? (args?: OutputArgs<A>, opts?: pulumi.InvokeOptions) => pulumi.Output<R>
    : (args: OutputArgs<A>, opts?: pulumi.InvokeOptions) => pulumi.Output<R>;

/**
 * The Output form of a lookup. It hands back an Output of the Promise: with @pulumi/pulumi 3.2xx, a rejecting `apply`
 * Promise that feeds exported outputs costs 20 to 30 s of CPU.
 */
export function outputOf<A, R>(fn: (args: A, opts?: pulumi.InvokeOptions) => Promise<R>): OutputForm<A, R> {
    const form = (args?: OutputArgs<A>, opts?: pulumi.InvokeOptions): pulumi.Output<R> =>
        pulumi.output(args ?? {}).apply((plain) => pulumi.output(fn(plain as unknown as A, opts))) as unknown as pulumi.Output<R>;
    return form as OutputForm<A, R>;
}

/** A lookup's Promise form: the core's lookup (provider/lookups/) on the program's account. */
export function promiseOf<R>(core: (account: LookupAccount) => Promise<R>): (args?: Record<string, never>, opts?: pulumi.InvokeOptions) => Promise<R>;
export function promiseOf<A, R>(core: (account: LookupAccount, args: A) => Promise<R>): (args: A, opts?: pulumi.InvokeOptions) => Promise<R>;
export function promiseOf<A, R>(core: (account: LookupAccount, args: A) => Promise<R>): (args: A, opts?: pulumi.InvokeOptions) => Promise<R> {
    return (args) => lookup((account) => core(account, args));
}

const inFlight = { started: 0, pending: 0, whenIdle: [] as Array<() => void> };

/** Runs one lookup on the program's account, counted while it runs (for `account.stop()`); its failure is one line. */
export async function lookup<R>(run: (account: LookupAccount) => Promise<R>): Promise<R> {
    inFlight.started++;
    inFlight.pending++;
    try {
        // runtime.getConfig reads the raw value: pulumi.Config#get would warn that edis:password is a secret.
        return await run(lookupAccountFor(resolveConfig((key) => pulumi.runtime.getConfig(`edis:${key}`))));
    } catch (e) {
        throw asRunError(e);
    } finally {
        if (--inFlight.pending === 0) for (const resolve of inFlight.whenIdle.splice(0)) resolve();
    }
}

/** Resolves once every lookup finished (those others' answers start too) and no registration waits on one. */
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
 * A lookup's failure as a `pulumi.RunError` (printed as its message alone), with a fixed message: the serializer's
 * `error serializing property "planId"` prefix would name the input that waited, not the lookup. `cause`: the original.
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
