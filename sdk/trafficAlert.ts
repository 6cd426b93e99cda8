import * as pulumi from "@pulumi/pulumi";
import trafficAlertShim = require("./shim/trafficAlert");
import { journalIdentity, registration, settleWhenRecorded } from "./options";

/** The arguments of a {@link TrafficAlert}. Every one replaces the alert when changed: EDIS cannot edit a hook. */
export interface TrafficAlertArgs {
    /** KVM id of the server, usually `server.kvmId`. */
    kvmId: pulumi.Input<string>;
    /** The http or https URL EDIS calls (from 149.154.154.251) with form fields `kvm`, `details` and `trigger_value`. */
    callbackUrl: pulumi.Input<string>;
    /** `post` (default) or `get`. */
    callbackMethod?: pulumi.Input<"post" | "get">;
    /** Percentage of the server's traffic allowance, 1 to 100, at which EDIS calls the URL. */
    triggerPercent: pulumi.Input<number>;
    /** User name for basic authentication of the callback. */
    callbackUser?: pulumi.Input<string>;
    /** Password for basic authentication of the callback; passed on as a secret and never an output. */
    callbackPassword?: pulumi.Input<string>;
}

/**
 * A traffic alert: EDIS calls your URL when the server has used the given share of its traffic allowance.
 * Creating it adds a hook (`hooks/set`), sent once only: if its answer is lost, the error says a hook may exist
 * and how to go on, because EDIS cannot list hooks and a second one would call the URL twice. Deleting it
 * removes the hook. Refresh cannot read hooks back. Needs API Access in the KVM portal.
 *
 * ```ts
 * new edis.TrafficAlert("web-traffic", { kvmId: server.kvmId, callbackUrl: "https://hooks.example.com/edis", triggerPercent: 80 });
 * ```
 */
export class TrafficAlert extends pulumi.dynamic.Resource {
    /** KVM id of the server. */
    declare public readonly kvmId: pulumi.Output<string>;
    /** The callback URL. */
    declare public readonly callbackUrl: pulumi.Output<string>;
    /** The callback's HTTP method. */
    declare public readonly callbackMethod: pulumi.Output<"post" | "get">;
    /** The trigger, in percent of the traffic allowance. */
    declare public readonly triggerPercent: pulumi.Output<number>;
    /** The basic-auth user of the callback, if any. */
    declare public readonly callbackUser: pulumi.Output<string | undefined>;
    /** The hook's id at EDIS (also the resource id). */
    declare public readonly hookId: pulumi.Output<number>;

    /** Adds the hook. */
    constructor(name: string, args: TrafficAlertArgs, opts?: pulumi.CustomResourceOptions) {
        const props: Record<string, unknown> = {
            kvmId: args.kvmId,
            callbackUrl: args.callbackUrl,
            callbackMethod: args.callbackMethod,
            triggerPercent: args.triggerPercent,
            callbackUser: args.callbackUser,
            callbackPassword: args.callbackPassword === undefined ? undefined : pulumi.secret(args.callbackPassword),
            hookId: undefined,
            callbackPasswordDigest: undefined,
            // The order journal's identity (see provider/journal.ts): hooks/set is never sent twice for one intent.
            ...journalIdentity(name, "pulumi-nodejs:dynamic/edis:TrafficAlert", opts),
        };
        super(trafficAlertShim, name, props, registration("TrafficAlert", opts, ["callbackPasswordDigest"]), "edis", "TrafficAlert");
        settleWhenRecorded(props.__resourceKey as pulumi.Input<unknown>, "hook", this.hookId);
    }
}
