/** A batched server's id is its place: every operation first checks its KVM's host name, never to cancel another's. */
import { KvmServerOutputs, ORDER_BATCH, resourceKeyOf, sameHostname } from "./inputs";
import { stateDelete } from "./holders";

/** The outputs without the mark once the description confirms the host name; unchanged while there is none to compare; an error if they differ. */
export function confirmBatchPlace<T extends Partial<KvmServerOutputs>>(outs: T): T {
    const batch = outs[ORDER_BATCH];
    if (!batch || typeof outs.description !== "string" || typeof outs.hostname !== "string") return outs;
    if (sameHostname(outs.description, outs.hostname)) {
        const confirmed = { ...outs };
        delete confirmed[ORDER_BATCH];
        return confirmed;
    }
    throw new Error(
        `service ${outs.serviceId} (${outs.kvmId ?? "no KVM yet"}) is held by ${outs.hostname} because of its place in order ${outs.orderId ?? "?"} ` +
            `(batch ${batch}), but EDIS describes that KVM as "${outs.description}": the order's services may have been mapped to the ` +
            `wrong resources. Nothing is changed or cancelled on it until this is sorted out. Check order ${outs.orderId ?? "?"} in the ` +
            `EDIS client area. If the servers are swapped, remove the resources concerned from the stack's state (\`pulumi state delete ` +
            `<urn>\`) and set adoptKvmId on each to the KVM whose description is its host name, then run \`pulumi up\`. If the ` +
            `description was only changed in the client area, set it back to ${outs.hostname}.`,
    );
}

/** Before anything acts on a marked server: its description must confirm it; none to compare stops it too. */
export function requireBatchPlace<T extends Partial<KvmServerOutputs>>(outs: T, why: string): T {
    const confirmed = confirmBatchPlace(outs);
    if (confirmed[ORDER_BATCH]) throw unconfirmedPlace(confirmed, why);
    return confirmed;
}

/** A server held by its place in a batched order whose KVM cannot be described now: nothing is changed or cancelled on it. */
export function unconfirmedPlace(outs: Partial<KvmServerOutputs>, why: string): Error {
    const order = outs.orderId ?? "?";
    return new Error(
        `service ${outs.serviceId} (${outs.kvmId ?? "no KVM known"}) is held by ${outs.hostname} because of its place in order ${order} ` +
            `(batch ${outs[ORDER_BATCH]}), and no description of its KVM has confirmed that: ${why}. Nothing was changed or cancelled ` +
            `on it. Run the command again once EDIS describes the KVM (\`pulumi refresh\` first if it may be gone at EDIS: it leaves ` +
            `the state once EDIS confirms that). Or check order ${order} in the EDIS client area, which shows the host name each ` +
            `service was ordered for. If service ${outs.serviceId} is ${outs.hostname}'s: to keep it, set its description there to ` +
            `${outs.hostname} (or run \`${stateDelete(resourceKeyOf(outs))}\` and adopt it with adoptKvmId); to let it go, cancel ` +
            `it there (unpaid too), then run that \`pulumi state delete\`.`,
    );
}
