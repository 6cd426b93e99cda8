/**
 * A KvmServer's order: a journalled one resumes, an unknown outcome blocks; checked against the catalogue, sent once
 * (paidWrite.ts); then the KVM id is awaited (from here any failure carries the service id into state).
 */
import { refusedInEdisForm, stopsWaiting } from "../client/answers";
import { isEdisApiError } from "../client/errors";
import { ENDPOINTS } from "../client/client";
import { OrderItem, OrderResult } from "../client/model";
import { DEFAULT_PROVISIONING_TIMEOUT_SECONDS } from "../config";
import { Identity, JournalPlace, OrderBatchInfo, OrderEntry, RESOURCE_KEY, entryFor, forgetOrderCommand, resolveCommand } from "../journal";
import { PaidOutcome, WriteOutcomeUnknownError, sendOnce } from "../paidWrite";
import { observe } from "./operations";
import { requireBatchPlace } from "./batchCheck";
import { namedElsewhere, namedOrder, orderedAt, orderedDespite, unplacedIds } from "./orderBatch";
import { Context, ServerInitError } from "../context";
import { pause } from "../clock";
import { KvmServerInputs, KvmServerOutputs, ORDER_BATCH, compact, sameHostname, sessionOutputs } from "./inputs";
import { checkOrder, resolvePaymentMethod } from "./orderCheck";
import { applyPowerState } from "./power";

/** Creates a KvmServer: adopts, resumes what the journal knows, or orders; what reaches the engine with a service id marks its entry "created". */
export async function createServer(ctx: Context, inputs: KvmServerInputs, id?: Identity): Promise<{ id: string; outs: KvmServerOutputs }> {
    try {
        const created = await orderOrResume(ctx, inputs, id);
        await handedOver(ctx, id, created.outs);
        return created;
    } catch (e) {
        if (e instanceof ServerInitError) await handedOver(ctx, id, e.properties as KvmServerOutputs);
        throw e;
    }
}

async function orderOrResume(ctx: Context, inputs: KvmServerInputs, id?: Identity): Promise<{ id: string; outs: KvmServerOutputs }> {
    const key = id?.key;
    if (inputs.adoptKvmId) {
        ctx.batcher?.notOrdering();
        const adopted = await adoptServer(ctx, inputs);
        const order = key ? await ctx.journal.read(key, "order") : undefined;
        if (order) {
            // Adopting resolves an order only with the server it made: its service, or (an unknown order) its host name as
            // the KVM's description says. Any other order stays, named here and in the error of a later order.
            const itsServer = order.serviceId === undefined ? sameHostname(adopted.outs.description ?? "", order.hostname) : order.serviceId === adopted.outs.serviceId;
            if (itsServer) await ctx.journal.clear(key!, "order");
            else {
                ctx.log(
                    `warning: the order journal keeps the order for ${order.hostname} sent at ${order.sentAt}${order.serviceId === undefined ? "" : ` (service ${order.serviceId})`}: ` +
                        `${inputs.adoptKvmId} is not ${order.serviceId === undefined ? `described as ${order.hostname}` : "its server"}, so that order may have made a server that is billed. ` +
                        `Look in the EDIS client area's Orders and Invoices; once it is dealt with, run \`${forgetOrderCommand(order, ctx.journal)}\`.`,
                );
            }
        }
        return { ...adopted, outs: compact({ ...adopted.outs, [RESOURCE_KEY]: key }) };
    }
    const journaled = id ? await entryFor(ctx.journal, { ...id, provider: ctx.provider }, "order", ctx.log, (e) => sameHostname(e.hostname, inputs.hostname)) : undefined;
    if (journaled?.state === "ordered") return resumeJournaledOrder(ctx, journaled, inputs);
    if (journaled?.state === "created") return resumeHandedOver(ctx, journaled, inputs);
    if (journaled) throw unknownOrder(journaled, ctx.journal);

    const paymentMethod = resolvePaymentMethod(inputs.paymentMethod, ctx.config, "nothing was ordered: the order");
    const { plan, location } = await checkOrder(ctx.catalogue, inputs, paymentMethod);
    const replacement = key ? ctx.replacing.get(key) : undefined;

    const entry: OrderEntry | undefined = key
        ? {
              kind: "order",
              state: "sending",
              key,
              hostname: inputs.hostname,
              sentAt: new Date().toISOString(),
              inputs: { ...inputs },
              replacing: replacement && { serviceId: replacement.serviceId, kvmId: replacement.kvmId },
              locationId: location.id,
              provider: ctx.provider,
          }
        : undefined;
    const terms = { billingCycle: inputs.billingCycle, paymentMethod, applyCredit: inputs.applyCredit };
    const item: OrderItem = {
        pid: inputs.planId,
        os: inputs.osId,
        hostname: inputs.hostname,
        additionalRam: inputs.additionalRamId,
        additionalVcpu: inputs.additionalVcpuId,
        additionalIp: inputs.additionalIpId,
        diskBoost: inputs.diskBoostId,
        sshPublicKey: inputs.sshPublicKey,
    };
    const outcomeUnknown = (problem: string, recorded?: OrderEntry) => orderOutcomeUnknown(ctx.journal, inputs.hostname, problem, recorded ?? entry);
    let outcome: PaidOutcome<OrderResult>;
    let batch: OrderBatchInfo | undefined;
    try {
        // With `edis:batchOrders`, the creates in flight share one add/order (orderBatch.ts).
        if (ctx.batcher) ({ outcome, batch } = await ctx.batcher.order({ terms, item, entry, unknown: outcomeUnknown }));
        else {
            outcome = await sendOnce<OrderEntry, OrderResult>({
                journal: ctx.journal,
                entry,
                endpoint: ENDPOINTS.order.path,
                log: ctx.log,
                cancelled: ctx.cancelled,
                send: () => ctx.client.addOrder({ ...terms, items: [item] }),
                made: (sending, order) => orderedAt(sending, order, 0, 1),
                madeDespite: (sending, e) => orderedDespite(sending, e, 0, 1),
                extra: (o) => unplacedIds(o, 1),
                unknown: outcomeUnknown,
            });
        }
    } catch (e) {
        if (isEdisApiError(e)) throw new Error(`nothing was ordered for ${inputs.hostname}: ${e.message}`);
        throw e;
    } finally {
        ctx.sessions.invalidate();
    }

    const named = "named" in outcome ? outcome.named : undefined;
    const order: OrderResult = "answered" in outcome ? outcome.answered : namedOrder(named!);
    const serviceId = order.placed > 0 ? order.serviceIds[0] : undefined;
    const extra = order.serviceIds.slice(order.placed > 0 ? 1 : 0);
    if (serviceId === undefined) {
        throw outcomeUnknown(`EDIS ${named ? `answered "${named.message}"` : `accepted order ${order.orderId}`} but named no service id for it in its serviceids field${namedElsewhere(extra)}`);
    }
    // Logged before anything else can fail: if this process dies now, this line is the user's only record of the server.
    ctx.log(
        `ordered ${inputs.hostname}: order ${order.orderId}, service ${order.serviceIds.join(", ")}, invoice ${order.invoiceId ?? "?"} ` +
            `(${order.invoicePaid ? "paid" : "unpaid"}), plan ${plan.id} (${plan.name}) at ${location.name}` +
            (batchOf(batch) ? `; one order with ${batch!.hostnames.filter((_, i) => i !== batch!.index).join(", ")} (batch ${batch!.id})` : ""),
    );
    const outs = orderedOutputs(inputs, { ...order, key, batch, serviceId, locationId: location.id });
    if (named) {
        throw initError(
            outs,
            `EDIS's answer to the order for ${inputs.hostname} was not a success (${named.message}), but it names service ` +
                `${order.serviceIds.join(", ")}: EDIS made it, and it may be billed. It is in the stack's state: check order ${order.orderId ?? "?"} ` +
                `in the EDIS client area, then run \`pulumi up\` to wait for it, or remove it from the program and run \`pulumi up\` to cancel it.` +
                extraText(extra, ctx, key),
        );
    }
    const done = await awaitServer(ctx, outs);
    if (extra.length) throw initError(done.outs, `${inputs.hostname} (service ${serviceId}) is provisioned.${extraText(extra, ctx, key)}`);
    return done;
}

/** The batch id a server's outputs keep, for a batch of more than one server (whose ids are mapped by place). */
function batchOf(batch: OrderBatchInfo | undefined): string | undefined {
    return batch && batch.hostnames.length > 1 ? batch.id : undefined;
}

function orderedOutputs(ordered: KvmServerInputs, o: Pick<OrderEntry, "batch" | "locationId" | "orderId" | "invoiceId" | "invoicePaid"> & { key?: string; serviceId: number }): KvmServerOutputs {
    const { key, batch, serviceId, orderId, invoiceId, invoicePaid } = o;
    const outs = { ...ordered, locationId: o.locationId ?? ordered.locationId, serviceId, orderId, invoiceId, invoicePaid };
    return compact({ ...outs, [RESOURCE_KEY]: key, [ORDER_BATCH]: batchOf(batch) });
}

function extraText(extra: number[], ctx: Context, key: string | undefined): string {
    if (!extra.length) return "";
    return (
        ` The order named services beyond its items' own (serviceids, one per item): service ${extra.join(", ")} belongs to no resource and may be billed. ` +
        `Look each up in the EDIS client area's services: an add-on billed as its own service has no KVM and cannot be adopted ` +
        `(cancel it there if it is not wanted); a server can be adopted with adoptKvmId on a resource of its own once provisioned` +
        (key ? `; then run \`${resolveCommand("forget", key, ctx.journal, "extra")}\` (the journal names them on every \`pulumi up\` until then).` : ".")
    );
}

async function handedOver(ctx: Context, id: Identity | undefined, outs: KvmServerOutputs): Promise<void> {
    if (!id || outs.serviceId === undefined || outs.adoptKvmId) return;
    try {
        const entry = await ctx.journal.read(id.key, "order");
        if (entry && entry.serviceId === outs.serviceId) await ctx.journal.write({ ...entry, state: "created", kvmId: outs.kvmId });
    } catch (e) {
        ctx.log(`warning: the order journal could not record that ${outs.hostname} reached the engine: ${(e as Error).message}`);
    }
}

/** The engine lost a server an earlier create returned: taken back if listed, else the user is told what to do. */
async function resumeHandedOver(ctx: Context, entry: OrderEntry, inputs: KvmServerInputs): Promise<{ id: string; outs: KvmServerOutputs }> {
    if (!entry.kvmId) return resumeJournaledOrder(ctx, entry, inputs);
    if ((await ctx.sessions.all()).has(entry.kvmId)) {
        ctx.log(`${entry.hostname}: service ${entry.serviceId} (${entry.kvmId}) was created for this resource earlier and is still at EDIS; it is taken back, not ordered again`);
        return resumeJournaledOrder(ctx, entry, inputs);
    }
    if ((await observe(ctx, entry.serviceId!, entry.kvmId)).gone) {
        // Not ordered anew here: this create's check skipped the order's checks (edis:maxNewServers, the spend limit) for
        // the entry; the next run orders, checked like any other order.
        await ctx.journal.clear(entry.key, "order");
        throw new Error(
            `${entry.hostname}: service ${entry.serviceId} created for this resource earlier is gone at EDIS; its journal entry is ` +
                `dropped. Nothing was ordered: run \`pulumi up\` again to order a new server (preview first shows what it orders).`,
        );
    }
    throw new Error(
        `${entry.hostname}: service ${entry.serviceId} (${entry.kvmId}) was created for ${entry.key} at ${entry.sentAt}, is not in the ` +
            `account's listing, and EDIS does not confirm it gone. Nothing was ordered. Check it in the EDIS client area: if it exists, ` +
            `set adoptKvmId to "${entry.kvmId}"; if it does not, run \`${resolveCommand("forget", entry.key, ctx.journal, "order")}\`. Then run \`pulumi up\` again.`,
    );
}

/** An order the journal knows but the engine does not: taken as ordered, with the inputs it was ordered with, and waited for. */
async function resumeJournaledOrder(ctx: Context, entry: OrderEntry, inputs: KvmServerInputs): Promise<{ id: string; outs: KvmServerOutputs }> {
    ctx.batcher?.notOrdering();
    ctx.log(
        `resuming ${entry.hostname}: order ${entry.orderId ?? "?"} (service ${entry.serviceId}) was placed at ${entry.sentAt} by a ` +
            `deployment that did not finish; it is in the order journal, so it is waited for, not ordered again`,
    );
    const ordered = entry.inputs as unknown as KvmServerInputs;
    if (ordered.hostname !== inputs.hostname || ordered.planId !== inputs.planId || ordered.osId !== inputs.osId) {
        ctx.log(`note: ${entry.hostname} was ordered with other inputs than the program now declares; the next \`pulumi up\` shows the difference`);
    }
    return awaitServer(ctx, orderedOutputs(ordered, { ...entry, serviceId: entry.serviceId! }));
}

/** After the order: an unpaid invoice stops here (in state, resumable), otherwise the provisioning wait. */
async function awaitServer(ctx: Context, outs: KvmServerOutputs): Promise<{ id: string; outs: KvmServerOutputs }> {
    const serviceId = outs.serviceId;
    if (!outs.invoicePaid) {
        throw initError(
            outs,
            `ordered ${outs.hostname} (order ${outs.orderId}, service ${serviceId}) but invoice ${outs.invoiceId ?? "?"} is unpaid, ` +
                `so EDIS will not provision it. The server is in the stack's state: pay the invoice in the EDIS client area, ` +
                `then run \`pulumi up\` again to finish without ordering again (or remove it from the program and run \`pulumi up\` to ` +
                `cancel it; \`pulumi destroy\` would cancel every server of the stack).`,
        );
    }
    return { id: String(serviceId), outs: await finishProvisioning(ctx, outs) };
}

/** A failure once the server exists: it reaches state with these outputs, and the next `pulumi up` resumes it. */
function initError(outs: KvmServerOutputs, message: string): ServerInitError {
    return new ServerInitError(String(outs.serviceId), outs, message);
}

/** Continues after the order: used by create, and by update for a server that failed to initialise. */
export async function resumeServer(ctx: Context, outs: KvmServerOutputs): Promise<KvmServerOutputs> {
    ctx.batcher?.notOrdering();
    ctx.log(`resuming ${outs.hostname}: service ${outs.serviceId} was ordered earlier; waiting for it, not ordering again`);
    return finishProvisioning(ctx, outs);
}

async function finishProvisioning(ctx: Context, outs: KvmServerOutputs): Promise<KvmServerOutputs> {
    const id = String(outs.serviceId);
    let provisioned: KvmServerOutputs;
    try {
        const kvmId = await waitForKvmId(ctx, outs);
        const session = await ctx.sessions.find(kvmId);
        if (session) ctx.management.remember(session);
        // No `powerState` until EDIS has reported it, so that a failed switch below shows as a change.
        provisioned = compact({ ...outs, kvmId, ...(session ? sessionOutputs(session) : {}), invoicePaid: true, powerState: undefined });
    } catch (e) {
        if (e instanceof ServerInitError) throw e;
        throw initError(
            outs,
            `${outs.hostname} (service ${id}) was ordered but could not be read back: ${(e as Error).message}. ` +
                `It is in the stack's state; run \`pulumi up\` again to finish.`,
        );
    }
    try {
        provisioned = requireBatchPlace(provisioned, "EDIS's listing does not describe its KVM yet");
    } catch (e) {
        // In state as what it was ordered for, with the mark: every plan shows it as a change until an update confirms it.
        throw initError(provisioned, `${(e as Error).message} It is in the stack's state.`);
    }
    if (!outs.powerState) return provisioned;
    try {
        return compact(await applyPowerState(ctx, provisioned, outs.powerState));
    } catch (e) {
        throw initError(
            provisioned,
            `${outs.hostname} (service ${id}) is provisioned, but it could not be powered ${outs.powerState}: ${(e as Error).message}. ` +
                `It is in the stack's state; run \`pulumi up\` again to retry.`,
        );
    }
}

/** How often the provisioning wait says where it is (at most; each poll's pause is at most 30 s too). */
export const PROGRESS_EVERY_MS = 30_000;

/** Polls get/kvmid up to the time limit; every answer means "not yet" (EDIS leaves its form open) except a credentials refusal. */
async function waitForKvmId(ctx: Context, outs: KvmServerOutputs): Promise<string> {
    const limitSeconds = outs.provisioningTimeoutSeconds ?? ctx.config.provisioningTimeoutSeconds ?? DEFAULT_PROVISIONING_TIMEOUT_SECONDS;
    const started = ctx.clock.now();
    const deadline = started + limitSeconds * 1000;
    let reported = -Infinity;
    let pauseMs = ctx.config.provisioningPollSeconds * 1000;
    let lastAnswer: string;
    for (let poll = 1; ; poll++) {
        try {
            const kvmId = await ctx.client.getKvmId(outs.serviceId);
            if (kvmId) return kvmId;
            lastAnswer = "EDIS get/kvmid named no KVM id yet";
        } catch (e) {
            if (!isEdisApiError(e) || stopsWaiting(e)) throw e;
            lastAnswer = e.message;
        }
        const left = deadline - ctx.clock.now();
        if (left <= 0) {
            throw initError(
                outs,
                `${outs.hostname} (service ${outs.serviceId}, order ${outs.orderId ?? "?"}) was ordered but has no KVM after ` +
                    `${limitSeconds} s and ${poll} polls (last answer: ${lastAnswer}). EDIS quotes about 5 minutes for Linux and up to 15 for Windows, and ` +
                    `nothing is provisioned while an invoice is unpaid. The server is in the stack's state: run \`pulumi up\` ` +
                    `again to keep waiting (raise provisioningTimeoutSeconds for longer), or remove it from the program and run ` +
                    `\`pulumi up\` to cancel it (\`pulumi destroy\` would cancel every server of the stack).`,
            );
        }
        // Report at the first "not yet" and at least every PROGRESS_EVERY_MS: a 20-minute wait must show it is alive.
        if (ctx.clock.now() - reported + Math.min(pauseMs, left) >= PROGRESS_EVERY_MS) {
            reported = ctx.clock.now();
            ctx.log(
                `waiting for ${outs.hostname} (service ${outs.serviceId}) to be provisioned: ${Math.round((reported - started) / 1000)} s of ` +
                    `${limitSeconds} s, ${poll} poll${poll === 1 ? "" : "s"}; EDIS last said: ${lastAnswer}`,
            );
        }
        await pause(ctx.clock, Math.min(pauseMs, left), ctx.cancelled);
        if (ctx.cancelled.aborted) {
            throw initError(
                outs,
                `the deployment was cancelled while ${outs.hostname} (service ${outs.serviceId}, order ${outs.orderId ?? "?"}) was ` +
                    `being provisioned; it stays ordered, and in the stack's state: the next \`pulumi up\` waits for it again ` +
                    `without ordering it (or remove it from the program and run \`pulumi up\` to cancel it)`,
            );
        }
        pauseMs = Math.min(pauseMs * 1.5, 30_000);
    }
}

async function adoptServer(ctx: Context, inputs: KvmServerInputs): Promise<{ id: string; outs: KvmServerOutputs }> {
    const kvmId = inputs.adoptKvmId!;
    let serviceId: number | undefined;
    try {
        serviceId = await ctx.client.getServiceId(kvmId);
    } catch (e) {
        if (isEdisApiError(e) && refusedInEdisForm(e)) {
            throw new Error(`adoptKvmId "${kvmId}" is not a KVM of this EDIS account (${e.message}); edis.getKvmSessions() lists the account's KVMs`);
        }
        throw e;
    }
    if (serviceId === undefined) throw new Error(`EDIS named no service id for adoptKvmId "${kvmId}"`);
    const [session, home] = await Promise.all([ctx.sessions.one(kvmId), inputs.planId === undefined ? undefined : ctx.catalogue.findPlan(inputs.planId)]);
    ctx.log(`adopted ${kvmId} as service ${serviceId} (${inputs.hostname}); nothing was ordered`);
    const adopted = compact({ ...inputs, locationId: inputs.locationId ?? home?.location.id, serviceId, ...(session ? sessionOutputs(session) : { kvmId }), powerState: undefined });
    if (inputs.powerState) return { id: String(serviceId), outs: compact(await applyPowerState(ctx, adopted, inputs.powerState)) };
    return { id: String(serviceId), outs: adopted };
}

/** The error for an order whose outcome is unknown, with what tells the candidates apart and the command that resolves it. */
function unknownOrder(entry: OrderEntry, journal: JournalPlace): WriteOutcomeUnknownError {
    const problem =
        entry.problem ??
        `the deployment that sent it at ${entry.sentAt}${entry.writer ? ` (${entry.writer})` : ""} has recorded no answer: it stopped before the ` +
            `answer came, or it is still running on another machine that shares the order journal (then let it finish and run \`pulumi up\` again)`;
    return orderOutcomeUnknown(journal, entry.hostname, problem, entry);
}

function orderOutcomeUnknown(journal: JournalPlace, hostname: string, problem: string, entry: OrderEntry | undefined): WriteOutcomeUnknownError {
    const forget = entry ? forgetOrderCommand(entry, journal) : undefined;
    const batch = entry?.batch;
    const others = batch?.hostnames.filter((_, i) => i !== batch.index) ?? [];
    const together = others.length
        ? ` It was one order with ${others.join(", ")} (batch ${batch!.id}): each of them is blocked the same way until this is resolved; ` +
          `look for every one of their descriptions, and adopt (adoptKvmId) those that exist before you forget the rest: the forget ` +
          `command below clears every member still unresolved.`
        : "";
    const replacing = entry?.replacing;
    const notOld = replacing
        ? ` This order was the new half of a replacement: the server being replaced (service ${replacing.serviceId}` +
          `${replacing.kvmId ? `, KVM ${replacing.kvmId}` : ""}) carries the same description and is NOT the new one; adopting it is refused.`
        : "";
    return new WriteOutcomeUnknownError(
        `the order for ${hostname}`,
        problem,
        `Look in the EDIS client area's Orders and Invoices for an order of "${hostname}"${entry ? ` placed at ${entry.sentAt}` : ""}: an order ` +
            `whose invoice is unpaid has no server yet, so edis.getKvmSessions() (provisioned servers only) cannot show that no order ` +
            `was placed.${notOld}${together} If the order exists, pay it (or cancel it there) and, once its server is provisioned, set ` +
            `adoptKvmId to its KVM id on this resource and run \`pulumi up\`: it is adopted, not ordered again. Only if the client area ` +
            `shows no such order${batch && others.length ? " for any of them (or only for those you have adopted)" : ""}, ` +
            (forget ? `run \`${forget}\` and then \`pulumi up\` to order it.` : `run \`pulumi up\` again to order it.`),
    );
}
