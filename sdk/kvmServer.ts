import * as pulumi from "@pulumi/pulumi";
import { journalIdentity, registration, settleWhenRecorded } from "./options";
import { INPUT_NAMES, OUTPUT_ONLY_NAMES } from "../provider/kvm/inputs";
import kvmServerShim = require("./shim/kvmServer");

import type { BillingCycleSpelling, CancellationType, ListPrice, PowerState } from "../provider/client/model";
export type { CancellationType, PowerState };

/** A billing cycle as a program may write it; `semi-annually` is accepted as a spelling of `semiannually`. */
export type BillingCycle = BillingCycleSpelling;

/** The arguments of a {@link KvmServer}. */
export interface KvmServerArgs {
    /**
     * Product id (`pid`) of the plan to order, from `edis.getPlan()`. Changing it resizes the server in place
     * through an upgrade order (EDIS does so only within a location), or replaces it with `replaceOnPlanChange`.
     */
    planId: pulumi.Input<number>;
    /** Operating-system add-on id of that plan, from `edis.getOperatingSystem()`. Changing it replaces the server. */
    osId: pulumi.Input<number>;
    /** RFC 1123 host name of the server. Changing it replaces the server. */
    hostname: pulumi.Input<string>;
    /** Location id; when given, the plan must belong to it. Changing it replaces the server. */
    locationId?: pulumi.Input<number>;
    /** How often EDIS bills the server. Default `monthly`. Changing it is done in place through an upgrade order. */
    billingCycle?: pulumi.Input<BillingCycle>;
    /** Payment method of the order (see `edis.getPaymentMethods()`). Default: config `edis:paymentMethod`. */
    paymentMethod?: pulumi.Input<string>;
    /** Pay the invoice from account credit when there is enough. Default true. */
    applyCredit?: pulumi.Input<boolean>;
    /** Extra-RAM add-on id of the plan (`edis.getAddon({group: "ram"})`). Changing it replaces the server. */
    additionalRamId?: pulumi.Input<number>;
    /** Extra-vCPU add-on id of the plan. Changing it replaces the server. */
    additionalVcpuId?: pulumi.Input<number>;
    /** Extra-IP add-on id of the plan. Changing it replaces the server. */
    additionalIpId?: pulumi.Input<number>;
    /** Disk-boost add-on id of the plan. Changing it replaces the server. */
    diskBoostId?: pulumi.Input<number>;
    /** OpenSSH public key installed for root, e.g. "ssh-ed25519 AAAA... you@host". Changing it replaces the server. */
    sshPublicKey?: pulumi.Input<string>;
    /**
     * What deleting the resource sends to EDIS. Default: config `edis:cancellationType`, else
     * `End of Billing Period` (the server runs, and is billed, until its period ends).
     */
    cancellationType?: pulumi.Input<CancellationType>;
    /**
     * How long create waits for EDIS to provision the server, in seconds. Default: config
     * `edis:provisioningTimeoutSeconds`, else 1200. A create that runs out of time keeps the server in state;
     * the next `pulumi up` continues the wait. The `customTimeouts` resource option does not change this wait.
     */
    provisioningTimeoutSeconds?: pulumi.Input<number>;
    /**
     * Take over an existing server by its KVM id instead of ordering one (in TypeScript, where `pulumi import`
     * cannot take a server over, the only way; in other languages `pulumi import` does it too). Adoption happens once: removing it afterwards
     * changes nothing, and changing it to another KVM replaces the resource (that KVM is adopted, this one cancelled).
     */
    adoptKvmId?: pulumi.Input<string>;
    /**
     * The power state to keep the server in, through the Management API: `"off"` powers it off once it is
     * provisioned, and a change switches it in place. Unset (the default) leaves power alone. Needs API Access,
     * enabled once in the KVM portal of any of your servers. A powered-off server is still billed.
     */
    powerState?: pulumi.Input<PowerState>;
    /**
     * When true, a change of `planId` replaces the server (a new one is ordered with the new plan, at the new
     * plan's location, then this one is cancelled with its data) instead of resizing it in place. Set it to move
     * a server to another location. It works in every language (in TypeScript the `replaceOnChanges` resource
     * option has no effect on this resource). Default false; changing it alone changes nothing at EDIS.
     */
    replaceOnPlanChange?: pulumi.Input<boolean>;
}


/**
 * A KVM virtual server bought from EDIS Global. Creating it places an order and waits until the server is
 * provisioned; deleting it cancels the service. The resource id is the EDIS service id. An order needs `planId`,
 * `osId` and `hostname` (preview refuses one without them); a server taken over with `adoptKvmId` or `pulumi import`
 * needs none of them, since EDIS does not report a server's plan or operating system.
 *
 * ```ts
 * const server = new edis.KvmServer("web", { planId: plan.id, osId: os.id, hostname: "web-1.example.com" });
 * export const kvmId = server.kvmId;
 * ```
 */
export class KvmServer extends pulumi.dynamic.Resource {
    /** Product id of the plan. */
    declare public readonly planId: pulumi.Output<number>;
    /** Operating-system add-on id. */
    declare public readonly osId: pulumi.Output<number>;
    /** Host name. */
    declare public readonly hostname: pulumi.Output<string>;
    /** Location id: the one given, or else the location the server was ordered in. */
    declare public readonly locationId: pulumi.Output<number | undefined>;
    /** Billing cycle, normalized (`semi-annually` becomes `semiannually`). */
    declare public readonly billingCycle: pulumi.Output<BillingCycle>;
    /** Payment method, when it was given as an input. */
    declare public readonly paymentMethod: pulumi.Output<string | undefined>;
    /** Whether account credit pays the invoice. */
    declare public readonly applyCredit: pulumi.Output<boolean>;
    /** Extra-RAM add-on id. */
    declare public readonly additionalRamId: pulumi.Output<number | undefined>;
    /** Extra-vCPU add-on id. */
    declare public readonly additionalVcpuId: pulumi.Output<number | undefined>;
    /** Extra-IP add-on id. */
    declare public readonly additionalIpId: pulumi.Output<number | undefined>;
    /** Disk-boost add-on id. */
    declare public readonly diskBoostId: pulumi.Output<number | undefined>;
    /** The SSH public key given at order time. */
    declare public readonly sshPublicKey: pulumi.Output<string | undefined>;
    /** Cancellation type, when it was given as an input. */
    declare public readonly cancellationType: pulumi.Output<CancellationType | undefined>;
    /** Provisioning time limit, when it was given as an input. */
    declare public readonly provisioningTimeoutSeconds: pulumi.Output<number | undefined>;
    /** The KVM id this resource adopted, when it adopted one. */
    declare public readonly adoptKvmId: pulumi.Output<string | undefined>;
    /**
     * With `powerState` set: the power state EDIS last reported (create, update, refresh), absent when it could not
     * be read (e.g. API Access is off); a refresh that finds another state shows an update that switches it back.
     * Without it, power is not managed and not read (no Management API call per server), and this is absent.
     */
    declare public readonly powerState: pulumi.Output<PowerState | undefined>;
    /** Whether a change of planId replaces the server, when it was given as an input. */
    declare public readonly replaceOnPlanChange: pulumi.Output<boolean | undefined>;

    /** EDIS service id (also the resource id). */
    declare public readonly serviceId: pulumi.Output<number>;
    /**
     * KVM id, e.g. `kvm_123456_789012`: what VncAccess, ReverseDns and TrafficAlert take. Set once the server is
     * provisioned (a create that stopped before that, e.g. on an unpaid invoice, fails, and has none until it is).
     */
    declare public readonly kvmId: pulumi.Output<string>;
    /** The order that bought this server (absent for an adopted one). */
    declare public readonly orderId: pulumi.Output<number | undefined>;
    /** The order's invoice. */
    declare public readonly invoiceId: pulumi.Output<number | undefined>;
    /** Whether the order's invoice was paid. */
    declare public readonly invoicePaid: pulumi.Output<boolean | undefined>;
    /** Host of the server's own management API. */
    declare public readonly apiHost: pulumi.Output<string | undefined>;
    /** Host name of the reverse-DNS API endpoint of the server's session. */
    declare public readonly apiRdns: pulumi.Output<string | undefined>;
    /** EDIS's description of the server. */
    declare public readonly description: pulumi.Output<string | undefined>;
    /** True when EDIS has suspended the server (e.g. an overdue invoice). */
    declare public readonly suspended: pulumi.Output<boolean | undefined>;
    /** Location/platform code EDIS reports for the session (`lps`). */
    declare public readonly lps: pulumi.Output<string | undefined>;
    /** Whether the platform is premium (`lps_ispremium`). */
    declare public readonly lpsIsPremium: pulumi.Output<boolean | undefined>;
    /** True when EDIS has suspended the server's traffic (allowance used up); read with the power state, so only with `powerState` set. */
    declare public readonly trafficSuspended: pulumi.Output<boolean | undefined>;
    /**
     * True when the last refresh did not find the server in the account's listing and EDIS did not confirm it gone
     * (both id lookups refusing it): it stays in state and shows as a change until it is listed again or confirmed
     * gone. The warning of that refresh says what EDIS answered and what to do.
     */
    declare public readonly notListed: pulumi.Output<boolean | undefined>;
    /**
     * The server's list price before tax, as ordered or last upgraded through Pulumi: the plan's price per billing
     * cycle and the monthly equivalent with add-ons, in EDIS's currency. Absent for a server taken over with
     * `adoptKvmId` or `pulumi import` (EDIS does not report a server's plan) until its plan is changed through Pulumi,
     * and when the catalogue could not price it; a refresh never changes it.
     */
    declare public readonly listPrice: pulumi.Output<ListPrice | undefined>;

    /** Orders (or adopts) a server. */
    constructor(name: string, args: KvmServerArgs, opts?: pulumi.CustomResourceOptions) {
        // Every property the resource exposes must be a key of props, undefined where the provider fills it in.
        const props: Record<string, unknown> = {};
        for (const name of [...INPUT_NAMES, ...OUTPUT_ONLY_NAMES]) props[name] = undefined;
        Object.assign(props, args ?? {});
        // The order journal's identity (see provider/journal.ts): the provider never sees the URN.
        if (!opts?.id) Object.assign(props, journalIdentity(name, "pulumi-nodejs:dynamic/edis:KvmServer", opts));
        super(kvmServerShim, name, props, registration("KvmServer", opts), "edis", "KvmServer");
        settleWhenRecorded(props.__resourceKey as pulumi.Input<unknown> | undefined, "order", this.serviceId as pulumi.Output<number | undefined>);
    }

    /**
     * Reads an existing server, by its service id, into the program without managing it. EDIS tells what a
     * server is now (its session entry: KVM id, API hosts, description, suspension), not what it was ordered
     * with, so the result types only those outputs: see KvmServerReading.
     */
    static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): KvmServerReading {
        return new KvmServer(name, undefined as unknown as KvmServerArgs, { ...opts, id });
    }
}

/**
 * A server read with `KvmServer.get`: the outputs EDIS reports for any server of the account. What it was
 * ordered with (plan, OS, location, billing cycle, host name, add-ons, SSH key) is known only to the stack
 * that ordered it; EDIS's API has no call that returns it, so it is not an output here.
 */
export interface KvmServerReading
    extends pulumi.CustomResource,
        Pick<KvmServer, "serviceId" | "kvmId" | "apiHost" | "apiRdns" | "description" | "suspended" | "lps" | "lpsIsPremium"> {}
