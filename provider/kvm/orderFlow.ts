/**
 * The order flow of a KvmServer, start to finish:
 *
 *   read the order journal                ─ a known order is resumed; an unknown outcome blocks a new one
 *   check the order against the catalogue  ─ a mismatch orders nothing
 *   journal "sending", add/order once      ─ never retried; a lost answer is journalled "unknown", not repeated
 *   journal "ordered" with the service id  ─ the record that survives a dead host or a dead engine
 *   wait for the KVM id (get/kvmid)       ─ any failure from here on carries the service id into state
 *   read the session entry (get/auth)     ─ the outputs
 *
 * `resumeServer` continues a create that stopped after the order (unpaid invoice, time limit, network):
 * the next `pulumi up` calls update on the failed resource, which lands here instead of ordering again. A
 * create whose result never reached the engine (killed host or engine) is resumed from the journal.
 */
import { isEdisApiError } from "../client/errors";
import { KvmSession, OrderResult } from "../client/model";
import { DEFAULT_PROVISIONING_TIMEOUT_SECONDS } from "../config";
import { OrderEntry, RESOURCE_KEY, resolveCommand } from "../journal";
import { Context, ServerInitError } from "./context";
import { KvmServerInputs, KvmServerOutputs, compact } from "./inputs";
import { checkOrder, resolvePaymentMethod } from "./orderCheck";
import { sessionOutputs } from "./inputs";
import { applyPowerState, readPowerState } from "./power";

export async function createServer(ctx: Context, inputs: KvmServerInputs, key?: string): Promise<{ id: string; outs: KvmServerOutputs }> {
    if (inputs.adoptKvmId) {
        const adopted = await adoptServer(ctx, inputs);
        // Adopting is how the user resolves an order whose outcome was unknown.
        if (key) ctx.journal.clear(key, "order");
        return { ...adopted, outs: compact({ ...adopted.outs, [RESOURCE_KEY]: key }) };
    }
    const journaled = key ? ctx.journal.read(key, "order") : undefined;
    if (journaled?.state === "ordered") return resumeJournaledOrder(ctx, journaled, inputs);
    if (journaled) throw unknownOrder(journaled, ctx.journal.dir);

    const paymentMethod = resolvePaymentMethod(inputs.paymentMethod, ctx.config, "nothing was ordered: the order");
    const { plan, location } = await checkOrder(ctx.catalogue, inputs, paymentMethod);

    const entry: OrderEntry | undefined = key
        ? { kind: "order", state: "sending", key, hostname: inputs.hostname, sentAt: new Date().toISOString(), inputs: { ...inputs } }
        : undefined;
    if (entry) ctx.journal.write(entry);
    let order: OrderResult;
    try {
        order = await ctx.client.addOrder({
            billingCycle: inputs.billingCycle,
            paymentMethod,
            applyCredit: inputs.applyCredit,
            items: [
                {
                    pid: inputs.planId,
                    os: inputs.osId,
                    hostname: inputs.hostname,
                    additionalRam: inputs.additionalRamId,
                    additionalVcpu: inputs.additionalVcpuId,
                    additionalIp: inputs.additionalIpId,
                    diskBoost: inputs.diskBoostId,
                    sshPublicKey: inputs.sshPublicKey,
                },
            ],
        });
    } catch (e) {
        if (entry && isEdisApiError(e) && e.outcomeUnknown) {
            const unknown: OrderEntry = { ...entry, state: "unknown", problem: e.message };
            // If this write fails, the "sending" entry still blocks a second order; the error is the same.
            recordAfterOrder(ctx, unknown);
            throw unknownOrder(unknown, ctx.journal.dir);
        }
        // EDIS refused it, or created it failed (out of stock): nothing will be provisioned or billed.
        if (entry) ctx.journal.clear(entry.key, "order");
        throw explainOrderFailure(e, inputs.hostname);
    } finally {
        ctx.sessions.invalidate();
    }

    const serviceId = order.serviceIds[0];
    if (entry) {
        const { orderId, invoiceId, invoicePaid } = order;
        recordAfterOrder(ctx, { ...entry, state: serviceId === undefined ? "unknown" : "ordered", serviceId, orderId, invoiceId, invoicePaid, locationId: location.id });
    }
    if (serviceId === undefined) {
        throw new Error(
            `EDIS accepted order ${order.orderId} for ${inputs.hostname} but named no service id. The server may still be ` +
                `provisioned and billed: check order ${order.orderId} in the EDIS client area, then adopt the server with adoptKvmId.`,
        );
    }
    // Written before anything else can fail: if this process dies now, the engine keeps no record of the
    // server, and this line in the deployment log is how the user finds it (README: "Recovering an order").
    ctx.log(
        `ordered ${inputs.hostname}: order ${order.orderId}, service ${serviceId}, invoice ${order.invoiceId ?? "?"} ` +
            `(${order.invoicePaid ? "paid" : "unpaid"}), plan ${plan.id} (${plan.name}) at ${location.name}`,
    );
    const outs: KvmServerOutputs = compact({
        ...inputs,
        [RESOURCE_KEY]: key,
        locationId: location.id,
        serviceId,
        orderId: order.orderId,
        invoiceId: order.invoiceId,
        invoicePaid: order.invoicePaid,
    });
    return awaitServer(ctx, outs);
}

/**
 * Journals what add/order answered. Once EDIS has answered, nothing may keep the service id from state, so a
 * failed write is logged, not thrown: the "sending" entry it leaves still blocks a second order on a re-run.
 */
function recordAfterOrder(ctx: Context, entry: OrderEntry): void {
    try {
        ctx.journal.write(entry);
    } catch (e) {
        ctx.log(`warning: the order journal could not record ${entry.hostname} (service ${entry.serviceId ?? "?"}): ${(e as Error).message}`);
    }
}

/**
 * An order the journal knows but the engine does not (the host or the engine died after add/order answered):
 * the server is taken as ordered, with the inputs it was ordered with, and waited for. If the program has
 * changed those inputs since, the next `pulumi up` shows the difference and acts on it as on any change.
 */
async function resumeJournaledOrder(ctx: Context, entry: OrderEntry, inputs: KvmServerInputs): Promise<{ id: string; outs: KvmServerOutputs }> {
    ctx.log(
        `resuming ${entry.hostname}: order ${entry.orderId ?? "?"} (service ${entry.serviceId}) was placed at ${entry.sentAt} by a ` +
            `deployment that did not finish; it is in the order journal, so it is waited for, not ordered again`,
    );
    const ordered = entry.inputs as unknown as KvmServerInputs;
    if (ordered.hostname !== inputs.hostname || ordered.planId !== inputs.planId || ordered.osId !== inputs.osId) {
        ctx.log(`note: ${entry.hostname} was ordered with other inputs than the program now declares; the next \`pulumi up\` shows the difference`);
    }
    const outs: KvmServerOutputs = compact({
        ...ordered,
        [RESOURCE_KEY]: entry.key,
        locationId: entry.locationId ?? ordered.locationId,
        serviceId: entry.serviceId!,
        orderId: entry.orderId,
        invoiceId: entry.invoiceId,
        invoicePaid: entry.invoicePaid,
    });
    return awaitServer(ctx, outs);
}

/** After the order: an unpaid invoice stops here (in state, resumable), otherwise the provisioning wait. */
async function awaitServer(ctx: Context, outs: KvmServerOutputs): Promise<{ id: string; outs: KvmServerOutputs }> {
    const serviceId = outs.serviceId;
    if (!outs.invoicePaid) {
        throw new ServerInitError(
            String(serviceId),
            outs,
            `ordered ${outs.hostname} (order ${outs.orderId}, service ${serviceId}) but invoice ${outs.invoiceId ?? "?"} is unpaid, ` +
                `so EDIS will not provision it. The server is in the stack's state: pay the invoice in the EDIS client area, ` +
                `then run \`pulumi up\` again to finish without ordering again (or remove it from the program and run \`pulumi up\` to ` +
                `cancel it; \`pulumi destroy\` would cancel every server of the stack).`,
        );
    }
    return { id: String(serviceId), outs: await finishProvisioning(ctx, outs) };
}

/** Continues after the order: used by create, and by update for a server that failed to initialise. */
export async function resumeServer(ctx: Context, outs: KvmServerOutputs): Promise<KvmServerOutputs> {
    ctx.log(`resuming ${outs.hostname}: service ${outs.serviceId} was ordered earlier; waiting for it, not ordering again`);
    return finishProvisioning(ctx, outs);
}

async function finishProvisioning(ctx: Context, outs: KvmServerOutputs): Promise<KvmServerOutputs> {
    const id = String(outs.serviceId);
    let provisioned: KvmServerOutputs;
    let session: KvmSession | undefined;
    try {
        const kvmId = await waitForKvmId(ctx, outs);
        session = await ctx.sessions.find(kvmId);
        if (session) ctx.management.remember(session);
        // No `powerState` until EDIS has reported it, so that a failed switch below shows as a change.
        provisioned = compact({ ...outs, kvmId, ...(session ? sessionOutputs(session) : {}), invoicePaid: true, powerState: undefined });
    } catch (e) {
        if (e instanceof ServerInitError) throw e;
        throw new ServerInitError(
            id,
            outs,
            `${outs.hostname} (service ${id}) was ordered but could not be read back: ${(e as Error).message}. ` +
                `It is in the stack's state; run \`pulumi up\` again to finish.`,
        );
    }
    // Power not managed: report it when it can be read (so that the first refresh finds nothing new), never fail on it.
    if (!outs.powerState) return session ? compact({ ...provisioned, ...(await readPowerState(ctx, session, outs.hostname)) }) : provisioned;
    try {
        return compact(await applyPowerState(ctx, provisioned, outs.powerState));
    } catch (e) {
        throw new ServerInitError(
            id,
            provisioned,
            `${outs.hostname} (service ${id}) is provisioned, but it could not be powered ${outs.powerState}: ${(e as Error).message}. ` +
                `It is in the stack's state; run \`pulumi up\` again to retry.`,
        );
    }
}

/**
 * Polls get/kvmid until the service has a KVM, with a growing pause, up to the time limit. EDIS leaves open
 * what "not provisioned yet" looks like: an answer without a KVM id, a 404, a 400, or an HTTP 200 with
 * `status: "error"` in any wording. So every answer means "not yet" except a refusal of the credentials,
 * which no amount of waiting mends; the time-out error shows the last answer.
 */
async function waitForKvmId(ctx: Context, outs: KvmServerOutputs): Promise<string> {
    const limitSeconds = outs.provisioningTimeoutSeconds ?? ctx.config.provisioningTimeoutSeconds ?? DEFAULT_PROVISIONING_TIMEOUT_SECONDS;
    const deadline = Date.now() + limitSeconds * 1000;
    let pauseMs = ctx.config.provisioningPollSeconds * 1000;
    let lastAnswer: string;
    for (let poll = 1; ; poll++) {
        try {
            const kvmId = await ctx.client.getKvmId(outs.serviceId);
            if (kvmId) return kvmId;
            lastAnswer = "EDIS get/kvmid named no KVM id yet";
        } catch (e) {
            if (!isEdisApiError(e) || e.kind === "credentials") throw e;
            lastAnswer = e.message;
        }
        const left = deadline - Date.now();
        if (left <= 0) {
            throw new ServerInitError(
                String(outs.serviceId),
                outs,
                `${outs.hostname} (service ${outs.serviceId}, order ${outs.orderId ?? "?"}) was ordered but has no KVM after ` +
                    `${limitSeconds} s and ${poll} polls (last answer: ${lastAnswer}). EDIS quotes about 5 minutes for Linux and up to 15 for Windows, and ` +
                    `nothing is provisioned while an invoice is unpaid. The server is in the stack's state: run \`pulumi up\` ` +
                    `again to keep waiting (raise provisioningTimeoutSeconds for longer), or remove it from the program and run ` +
                    `\`pulumi up\` to cancel it (\`pulumi destroy\` would cancel every server of the stack).`,
            );
        }
        if (poll === 1 || poll % 10 === 0) ctx.log(`waiting for ${outs.hostname} (service ${outs.serviceId}) to be provisioned`);
        await new Promise((r) => setTimeout(r, Math.min(pauseMs, left)));
        pauseMs = Math.min(pauseMs * 1.5, 30_000);
    }
}

/** Takes over a server that exists: nothing is ordered. */
async function adoptServer(ctx: Context, inputs: KvmServerInputs): Promise<{ id: string; outs: KvmServerOutputs }> {
    const kvmId = inputs.adoptKvmId!;
    let serviceId: number | undefined;
    try {
        serviceId = await ctx.client.getServiceId(kvmId);
    } catch (e) {
        if (isEdisApiError(e) && e.meaning === "gone") {
            throw new Error(`adoptKvmId "${kvmId}" is not a KVM of this EDIS account; edis.getKvmSessions() lists the account's KVMs`);
        }
        throw e;
    }
    if (serviceId === undefined) throw new Error(`EDIS named no service id for adoptKvmId "${kvmId}"`);
    const [session, home] = await Promise.all([ctx.sessions.one(kvmId), ctx.catalogue.findPlan(inputs.planId)]);
    ctx.log(`adopted ${kvmId} as service ${serviceId} (${inputs.hostname}); nothing was ordered`);
    const outs = { ...inputs, locationId: inputs.locationId ?? home?.location.id, serviceId, ...(session ? sessionOutputs(session) : { kvmId }) };
    const adopted = compact({ ...outs, powerState: undefined });
    if (inputs.powerState) return { id: String(serviceId), outs: compact(await applyPowerState(ctx, adopted, inputs.powerState)) };
    return { id: String(serviceId), outs: session ? compact({ ...adopted, ...(await readPowerState(ctx, session, inputs.hostname)) }) : adopted };
}

/**
 * add/order gave no usable answer. Whether the order exists is unknown unless EDIS said so, so the text
 * tells the user how to find out and how to adopt it, instead of ordering again.
 */
function explainOrderFailure(e: unknown, hostname: string): Error {
    if (!isEdisApiError(e)) return e as Error;
    if (e.orderId !== undefined) {
        return new Error(
            `EDIS created order ${e.orderId} for ${hostname} but reported it failed (${e.serverMessage ?? "no reason given"}); ` +
                `the plan is probably out of stock at this location. No server was provisioned. Choose another plan or ` +
                `location, and check order ${e.orderId} in the EDIS client area.`,
        );
    }
    if (!e.outcomeUnknown) return new Error(`nothing was ordered for ${hostname}: ${e.message}`);
    return new OrderOutcomeUnknownError(hostname, e.message);
}

/** The error for an order whose outcome the journal records as unknown, with the command that resolves it. */
function unknownOrder(entry: OrderEntry, journalDir: string): OrderOutcomeUnknownError {
    const problem = entry.problem ?? `the deployment that sent it at ${entry.sentAt} stopped before its answer was recorded`;
    return new OrderOutcomeUnknownError(entry.hostname, problem, resolveCommand("forget", entry.key, journalDir));
}

export class OrderOutcomeUnknownError extends Error {
    /** `forget`: the command that tells the journal no order was placed; without a journal, a rerun orders. */
    constructor(hostname: string, problem: string, forget?: string) {
        super(
            `the order for ${hostname} may or may not have been placed: ${problem}. It is not sent again, so that the server ` +
                `cannot be bought twice. Check whether it exists: look in the EDIS client area, or list the account's ` +
                `servers with edis.getKvmSessions() and look for the description "${hostname}". If it exists, set adoptKvmId ` +
                `to its KVM id on this resource and run \`pulumi up\`: it is adopted, not ordered again. If it does not, ` +
                (forget ? `run \`${forget}\` and then \`pulumi up\` to order it.` : `run \`pulumi up\` again to order it.`),
        );
        this.name = "OrderOutcomeUnknownError";
    }
}
