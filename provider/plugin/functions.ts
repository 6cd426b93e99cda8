/** The lookups as the plugin's functions: the same core functions the TypeScript SDK calls, every one of them. */
import * as catalogue from "../lookups/catalogue";
import * as account from "../lookups/account";
import { LookupAccount, lookupAccountFor } from "../lookups/account";
import type { Core } from "../runtime";
import type { Props } from "./properties";

type Fn = (account: LookupAccount, args: Props) => Promise<unknown>;

/** Every lookup by its token: each function of the two lookup modules whose name starts with `get`. */
const BY_TOKEN: Record<string, Fn> = Object.fromEntries(
    Object.entries({ ...catalogue, ...account })
        .filter(([name, fn]) => name.startsWith("get") && typeof fn === "function")
        .map(([name, fn]) => [`edis:index:${name}`, fn as Fn]),
);

export const FUNCTION_TOKENS = Object.keys(BY_TOKEN);

export function functionsOn(core: Core): Record<string, (args: Props) => Promise<unknown>> {
    const onCore = (fn: Fn) => (args: Props) => fn(lookupAccountFor(core.currentConfig()), args);
    return Object.fromEntries(Object.entries(BY_TOKEN).map(([token, fn]) => [token, onCore(fn)]));
}
