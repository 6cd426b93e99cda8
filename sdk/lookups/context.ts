/**
 * What every lookup uses: a client built from the program's `edis:*` config (environment fallbacks as in
 * the provider), with the same Catalogue and SessionDirectory the provider uses, one per account for the
 * whole program run, so that however many lookups a program makes, each catalogue answer is fetched once.
 */
import * as pulumi from "@pulumi/pulumi";
import { Catalogue } from "../../provider/catalogue";
import { clientFromConfig, resolveConfig } from "../../provider/config";
import { SessionDirectory } from "../../provider/sessions";

export interface LookupAccount {
    catalogue: Catalogue;
    sessions: SessionDirectory;
}

const accounts = new Map<string, LookupAccount>();

/** The account the program's configuration names. */
export function lookupAccount(): LookupAccount {
    // runtime.getConfig reads the raw value; pulumi.Config#get would warn that edis:password is a secret.
    const config = resolveConfig((key) => pulumi.runtime.getConfig(`edis:${key}`));
    const key = `${config.baseUrl}|${config.authUrl}|${config.email}`;
    let account = accounts.get(key);
    if (!account) {
        // Throws, naming the config key and the variable, when a credential is missing.
        const client = clientFromConfig(config, { userAgent: "pulumi-edis (lookup)" });
        account = { catalogue: new Catalogue(client), sessions: new SessionDirectory(client) };
        accounts.set(key, account);
    }
    return account;
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

/** The error every lookup throws: says which lookup, what was asked, and what exists. */
export class LookupError extends Error {
    constructor(lookup: string, message: string) {
        super(`edis.${lookup}: ${message}`);
        this.name = "LookupError";
    }
}
