/** Builds add/order's `order` field: a JSON document sent as a string inside the form body. */
import { OrderRequest } from "./model";

export function buildOrderDocument(order: OrderRequest) {
    if (order.items.length === 0) throw new Error("an order needs at least one item");
    return {
        billingcycle: order.billingCycle,
        paymentmethod: order.paymentMethod,
        applycredit: order.applyCredit,
        item: order.items.map((i) => ({
            pid: i.pid,
            os: i.os,
            hostname: i.hostname,
            additional_ram: i.additionalRam ?? "",
            additional_vcpu: i.additionalVcpu ?? "",
            additional_ip: i.additionalIp ?? "",
            // The documented name (the vendor's sample once says `additional_driveboost`).
            additional_diskboost: i.diskBoost ?? "",
            ssh_pubkey: i.sshPublicKey ?? "",
        })),
    };
}
