/**
 * The lookups as the plugin's functions (`edis:index:getPlan`, ...): the same code the TypeScript SDK's lookups
 * run, on the provider's configuration instead of the program's config. Results carry no credential: the
 * session entries of getKvmSessions go without their signatures (the Management API resources fetch their own).
 */
import * as catalogue from "../../sdk/lookups/catalogue";
import * as account from "../../sdk/lookups/account";
import { useLookupSettings } from "../../sdk/lookups/context";
import { currentConfig } from "../runtime";
import type { KvmSession } from "../client/model";
import type { Props } from "./properties";

useLookupSettings(currentConfig);

function withoutCredential(s: KvmSession): Omit<KvmSession, "signature" | "validUntilText"> {
    const { signature: _signature, validUntilText: _text, ...rest } = s;
    return rest;
}

type Fn = (args: Props) => Promise<unknown>;

export const FUNCTIONS: Record<string, Fn> = {
    "edis:index:getLocation": (a) => catalogue.getLocation(a as never),
    "edis:index:getPlan": (a) => catalogue.getPlan(a as never),
    "edis:index:getOperatingSystem": (a) => catalogue.getOperatingSystem(a as never),
    "edis:index:getAddon": (a) => catalogue.getAddon(a as never),
    "edis:index:getBillingCycles": () => catalogue.getBillingCycles(),
    "edis:index:getPaymentMethods": () => catalogue.getPaymentMethods(),
    "edis:index:getKvmSessions": async () => ({ sessions: (await account.getKvmSessions()).sessions.map(withoutCredential) }),
    "edis:index:getKvmId": (a) => account.getKvmId(a as never),
    "edis:index:getServiceId": (a) => account.getServiceId(a as never),
};
