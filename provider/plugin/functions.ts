/** The lookups as the plugin's functions. Results carry no credential: session entries go without their signatures. */
import * as catalogue from "../lookups/catalogue";
import * as account from "../lookups/account";
import { LookupAccount, lookupAccountFor } from "../lookups/account";
import type { Core } from "../runtime";
import type { KvmSession } from "../client/model";
import type { Props } from "./properties";

function withoutCredential(s: KvmSession): Omit<KvmSession, "signature" | "validUntilText"> {
    const { signature: _signature, validUntilText: _text, ...rest } = s;
    return rest;
}

type Fn = (account: LookupAccount, args: Props) => Promise<unknown>;

const BY_TOKEN: Record<string, Fn> = {
    "edis:index:getLocation": (c, a) => catalogue.getLocation(c, a as never),
    "edis:index:getPlan": (c, a) => catalogue.getPlan(c, a as never),
    "edis:index:getOperatingSystem": (c, a) => catalogue.getOperatingSystem(c, a as never),
    "edis:index:getAddon": (c, a) => catalogue.getAddon(c, a as never),
    "edis:index:getBillingCycles": (c) => catalogue.getBillingCycles(c),
    "edis:index:getPaymentMethods": (c) => catalogue.getPaymentMethods(c),
    "edis:index:getKvmSessions": async (c) => ({ sessions: (await account.getKvmSessions(c)).sessions.map(withoutCredential) }),
    "edis:index:getKvmId": (c, a) => account.getKvmId(c, a as never),
    "edis:index:getServiceId": (c, a) => account.getServiceId(c, a as never),
};

export const FUNCTION_TOKENS = Object.keys(BY_TOKEN);

/** The functions on one core's configuration. */
export function functionsOn(core: Core): Record<string, (args: Props) => Promise<unknown>> {
    return Object.fromEntries(Object.entries(BY_TOKEN).map(([token, fn]) => [token, (args: Props) => fn(lookupAccountFor(core.currentConfig()), args)]));
}
