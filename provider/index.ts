/** `pulumi-edis/provider`: what Pulumi's dynamic-provider host loads (sdk/providerShim.ts). */
import type * as pulumi from "@pulumi/pulumi";
import { withheldError, withhold, withoutRepeat } from "./client/withhold";
import { kvmServerOn } from "./kvm/provider";
import { vncAccessOn } from "./management/vncAccess";
import { reverseDnsOn } from "./management/reverseDns";
import { trafficAlertOn } from "./management/trafficAlert";
import { processCore } from "./runtime";
import { connectEngine, inResource, linesDelivered } from "./engineLog";
import { RESOURCE_KEY } from "./journal";
import type { CheckFailure } from "./fields";

// In Pulumi's dynamic-provider host (`node .../cmd/dynamic-provider/index.js <engine address>`), lines go to the engine.
if (/[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/.test(process.argv[1] ?? "") && /^[\w.-]+:[1-9]\d*$/.test(process.argv[2] ?? "")) {
    connectEngine(processCore, process.argv[2]);
}

/** A provider as the dynamic host calls it: under the SDK's URN, failures withheld, answering once lines are sent. */
function dynamicDoor<T extends object>(impl: T): T {
    const urnOf = (args: unknown[]) =>
        args.map((a) => (a && typeof a === "object" ? (a as Record<string, unknown>)[RESOURCE_KEY] : undefined)).find((k): k is string => typeof k === "string");
    type Method = (...a: unknown[]) => Promise<unknown>;
    const call = (fn: Method) => async (...args: unknown[]) => {
        try {
            const result = await inResource(urnOf(args), async () => fn.apply(impl, args))();
            const failures = (result as { failures?: CheckFailure[] } | undefined)?.failures;
            if (!Array.isArray(failures)) return result;
            return { ...(result as object), failures: failures.map((f) => ({ ...f, reason: withhold(f.reason, { scope: "composed" }) })) };
        } catch (e) {
            throw withoutRepeat(withheldError(e));
        } finally {
            await linesDelivered();
        }
    };
    return Object.fromEntries(Object.entries(impl).map(([name, fn]) => [name, typeof fn === "function" ? call(fn as Method) : fn])) as T;
}

/** The four resource types' implementations, by the names sdk/providerShim.ts requires them under. */
export const kvmServer: pulumi.dynamic.ResourceProvider = dynamicDoor(kvmServerOn(processCore));
export const vncAccess: pulumi.dynamic.ResourceProvider = dynamicDoor(vncAccessOn(processCore));
export const reverseDns: pulumi.dynamic.ResourceProvider = dynamicDoor(reverseDnsOn(processCore));
export const trafficAlert: pulumi.dynamic.ResourceProvider = dynamicDoor(trafficAlertOn(processCore));
