/** The lookups as the plugin's functions: the same core functions the TypeScript SDK calls, every one of them. */
import * as catalogue from "../lookups/catalogue";
import * as account from "../lookups/account";
import { LookupAccount, lookupAccountFor } from "../lookups/account";
import type { Core } from "../runtime";
import type { Props } from "./properties";

type Fn = (account: LookupAccount, args: Props) => Promise<unknown>;

const BY_TOKEN: Record<string, Fn> = {
    "edis:index:getLocations": (c) => catalogue.getLocations(c),
    "edis:index:getLocation": (c, a) => catalogue.getLocation(c, a as never),
    "edis:index:getPlans": (c, a) => catalogue.getPlans(c, a as never),
    "edis:index:getPlan": (c, a) => catalogue.getPlan(c, a as never),
    "edis:index:getOperatingSystems": (c, a) => catalogue.getOperatingSystems(c, a as never),
    "edis:index:getOperatingSystem": (c, a) => catalogue.getOperatingSystem(c, a as never),
    "edis:index:getAddon": (c, a) => catalogue.getAddon(c, a as never),
    "edis:index:getBillingCycles": (c) => catalogue.getBillingCycles(c),
    "edis:index:getPaymentMethods": (c) => catalogue.getPaymentMethods(c),
    "edis:index:getKvmSessions": (c) => account.getKvmSessions(c),
    "edis:index:getKvmSession": (c, a) => account.getKvmSession(c, a as never),
    "edis:index:getKvmId": (c, a) => account.getKvmId(c, a as never),
    "edis:index:getServiceId": (c, a) => account.getServiceId(c, a as never),
};

export const FUNCTION_TOKENS = Object.keys(BY_TOKEN);

/** The functions on one core's configuration. */
export function functionsOn(core: Core): Record<string, (args: Props) => Promise<unknown>> {
    return Object.fromEntries(Object.entries(BY_TOKEN).map(([token, fn]) => [token, (args: Props) => fn(lookupAccountFor(core.currentConfig()), args)]));
}
