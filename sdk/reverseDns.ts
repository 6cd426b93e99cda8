import * as pulumi from "@pulumi/pulumi";
import { registration } from "./options";
import reverseDnsShim = require("./shim/reverseDns");

/** The arguments of a {@link ReverseDns}. */
export interface ReverseDnsArgs {
    /** KVM id of the server, usually `server.kvmId`. Changing it replaces the record. */
    kvmId: pulumi.Input<string>;
    /** An IPv4 or IPv6 address of that server (see the KVM portal). Changing it replaces the record. */
    ipAddress: pulumi.Input<string>;
    /** The host name the address points back to, e.g. `web-1.example.com`. Changed in place. */
    dnsPtr: pulumi.Input<string>;
}

/**
 * The reverse-DNS (PTR) record of one address of a server, set through the reverse-DNS API its session names.
 *
 * What each operation does, as far as EDIS allows: create and update set the record; delete removes it with
 * `del/ptr` (if the reverse-DNS host answers that it has no such call, the record is left and the deployment
 * log says so); refresh cannot read the record back, because EDIS documents no answer for reading PTR records,
 * so a record changed in the portal is not detected: set it from Pulumi only.
 *
 * ```ts
 * new edis.ReverseDns("web-ptr", { kvmId: server.kvmId, ipAddress: "192.0.2.10", dnsPtr: "web-1.example.com" });
 * ```
 */
export class ReverseDns extends pulumi.dynamic.Resource {
    /** KVM id of the server. */
    declare public readonly kvmId: pulumi.Output<string>;
    /** The address, normalized to lower case. */
    declare public readonly ipAddress: pulumi.Output<string>;
    /** The PTR name, lower case, without a trailing dot. */
    declare public readonly dnsPtr: pulumi.Output<string>;

    /** Sets the record. */
    constructor(name: string, args: ReverseDnsArgs, opts?: pulumi.CustomResourceOptions) {
        super(reverseDnsShim, name, { kvmId: args.kvmId, ipAddress: args.ipAddress, dnsPtr: args.dnsPtr }, registration("ReverseDns", opts), "edis", "ReverseDns");
    }
}
