import * as pulumi from "@pulumi/pulumi";
import { registration } from "./options";
import vncAccessShim = require("./shim/vncAccess");

/** The arguments of a {@link VncAccess}. */
export interface VncAccessArgs {
    /** KVM id of the server, usually `server.kvmId`. Changing it replaces the resource. */
    kvmId: pulumi.Input<string>;
    /**
     * The VNC password: exactly 8 letters or digits (EDIS's rule). Passed on as a secret and never an output;
     * state keeps only a salted digest, so that a new password is seen as a change (in place).
     */
    password: pulumi.Input<string>;
}

/**
 * VNC console access to a server, through its Management API: creating it enables VNC with the password,
 * deleting it disables VNC. A refresh reads whether VNC is still enabled; if someone disabled it, the next
 * `pulumi up` enables it again. Needs API Access, enabled once in the KVM portal of any of your servers.
 *
 * ```ts
 * const vnc = new edis.VncAccess("web-vnc", { kvmId: server.kvmId, password: config.requireSecret("vncPassword") });
 * export const vncEndpoint = pulumi.interpolate`${vnc.host}:${vnc.port}`;
 * ```
 */
export class VncAccess extends pulumi.dynamic.Resource {
    /** KVM id of the server. */
    declare public readonly kvmId: pulumi.Output<string>;
    /** Whether VNC is enabled, as EDIS last reported it. */
    declare public readonly enabled: pulumi.Output<boolean>;
    /** Host of the VNC server. */
    declare public readonly host: pulumi.Output<string | undefined>;
    /** Port of the VNC server. */
    declare public readonly port: pulumi.Output<number | undefined>;
    /** Port of the browser (noVNC) console. */
    declare public readonly novncPort: pulumi.Output<number | undefined>;

    /** Enables VNC on the server. */
    constructor(name: string, args: VncAccessArgs, opts?: pulumi.CustomResourceOptions) {
        const props = {
            kvmId: args.kvmId,
            password: pulumi.secret(args.password),
            enabled: undefined,
            host: undefined,
            port: undefined,
            novncPort: undefined,
            passwordDigest: undefined,
        };
        super(vncAccessShim, name, props, registration("VncAccess", opts, ["passwordDigest"]), "edis", "VncAccess");
    }
}
