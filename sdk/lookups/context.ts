/**
 * What every lookup uses: a client built from the program's `edis:*` config (environment fallbacks as in
 * the provider), and one Catalogue per account for the whole program run, so that however many lookups a
 * program makes, each catalogue answer is fetched once.
 */
import * as pulumi from "@pulumi/pulumi";
import { Catalogue } from "../../provider/catalogue";
import { clientFromConfig, requireCredentials, resolveConfig } from "../../provider/config";

const catalogues = new Map<string, Catalogue>();

/** The catalogue (and through it the client) for the program's configuration. */
export function lookupCatalogue(): Catalogue {
    // runtime.getConfig reads the raw value; pulumi.Config#get would warn that edis:password is a secret.
    const config = resolveConfig((key) => pulumi.runtime.getConfig(`edis:${key}`));
    const { email } = requireCredentials(config);
    const key = `${config.baseUrl}|${config.authUrl}|${email}`;
    let catalogue = catalogues.get(key);
    if (!catalogue) {
        catalogue = new Catalogue(clientFromConfig(config, { userAgent: "pulumi-edis (lookup)" }));
        catalogues.set(key, catalogue);
    }
    return catalogue;
}

/** Every field of a lookup's arguments as a pulumi.Input, for the `...Output` forms. */
export type OutputArgs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** The Output form of a lookup: waits for its arguments, then runs the Promise form. */
export function outputOf<A, R>(fn: (args: A, opts?: pulumi.InvokeOptions) => Promise<R>) {
    return (args?: OutputArgs<A>, opts?: pulumi.InvokeOptions): pulumi.Output<R> =>
        pulumi.output(args ?? {}).apply((plain) => fn(plain as unknown as A, opts)) as pulumi.Output<R>;
}

/** The error every lookup throws: says which lookup, what was asked, and what exists. */
export class LookupError extends Error {
    constructor(lookup: string, message: string) {
        super(`edis.${lookup}: ${message}`);
        this.name = "LookupError";
    }
}
