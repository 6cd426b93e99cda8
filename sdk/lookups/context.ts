/**
 * What every lookup of the SDK shares: the account the program's `edis:*` config names (environment fallbacks as
 * in the provider; the core keeps one per account, provider/lookups/account.ts), the Output forms, and the count of
 * lookups in flight that a unit test's `account.stop()` waits for.
 */
import * as pulumi from "@pulumi/pulumi";
import { resolveConfig } from "../../provider/config";
import { LookupAccount, lookupAccountFor } from "../../provider/lookups/account";

export { LookupError } from "../../provider/lookups/account";

/** The account the program's configuration names. */
function programAccount(): LookupAccount {
    // runtime.getConfig reads the raw value; pulumi.Config#get would warn that edis:password is a secret.
    return lookupAccountFor(resolveConfig((key) => pulumi.runtime.getConfig(`edis:${key}`)));
}

/** Every field of a lookup's arguments as a pulumi.Input, for the `...Output` forms. */
export type OutputArgs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/**
 * An Output form's signature: the same required arguments as the Promise form (optional only when the
 * Promise form has none), each a `pulumi.Input`.
 */
export type OutputForm<A, R> = {} extends A
    ? (args?: OutputArgs<A>, opts?: pulumi.InvokeOptions) => pulumi.Output<R>
    : (args: OutputArgs<A>, opts?: pulumi.InvokeOptions) => pulumi.Output<R>;

/** The Output form of a lookup: waits for its arguments, then runs the Promise form. */
export function outputOf<A, R>(fn: (args: A, opts?: pulumi.InvokeOptions) => Promise<R>): OutputForm<A, R> {
    const form = (args?: OutputArgs<A>, opts?: pulumi.InvokeOptions): pulumi.Output<R> =>
        pulumi.output(args ?? {}).apply((plain) => fn(plain as unknown as A, opts)) as pulumi.Output<R>;
    return form as OutputForm<A, R>;
}

/** How many lookups the program has started, and how many of them have not finished. */
const inFlight = { started: 0, pending: 0, whenIdle: [] as Array<() => void> };

/**
 * Runs one lookup on the program's account: counts it while it runs (a unit test's `account.stop()` waits for the program's lookups,
 * sdk/testing.ts), and makes its failure keep its own words first (see keepsItsOwnWords).
 */
export async function lookup<R>(run: (account: LookupAccount) => Promise<R>): Promise<R> {
    inFlight.started++;
    inFlight.pending++;
    try {
        return await run(programAccount());
    } catch (e) {
        throw keepsItsOwnWords(e);
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
 * A lookup's failure reaches the program through whatever awaits it. When that is a resource input, the SDK's
 * serializer rewrites the error's message in place, `error serializing property "planId": ...`, which puts
 * the fault at the input, while it is the lookup's: its arguments, a config key, the credentials, the
 * network. The error keeps its own words first and names the input after them; any other rewrite stands.
 */
function keepsItsOwnWords(e: unknown): unknown {
    if (!(e instanceof Error) || Object.getOwnPropertyDescriptor(e, "message")?.set) return e;
    let own = e.message;
    const inputs: string[] = [];
    Object.defineProperty(e, "message", {
        configurable: true,
        enumerable: false,
        get: () => (inputs.length ? `${own} (this lookup's result was for the resource input${inputs.length > 1 ? "s" : ""} ${inputs.map((i) => `"${i}"`).join(", ")})` : own),
        set: (text: unknown) => {
            const prefix = /^error serializing property "([^"]*)": /.exec(String(text));
            if (!prefix) own = String(text);
            else if (!inputs.includes(prefix[1])) inputs.push(prefix[1]);
        },
    });
    return e;
}
