/**
 * What a KvmServer does after it exists: read its live state, change plan or billing cycle in place, cancel.
 */
import { isEdisApiError } from "../client/errors";
import { CancellationType } from "../client/model";
import { DEFAULT_CANCELLATION_TYPE } from "../config";
import { Context } from "./context";
import { KvmServerInputs, KvmServerOutputs, compact, sessionOutputs } from "./inputs";
import { billingCycleProblem, paymentMethodProblem, resolvePaymentMethod } from "./orderCheck";

export type ReadResult = { id: string; props: Record<string, unknown> };
const GONE: ReadResult = { id: "", props: {} };

/**
 * Live state for refresh. A KVM in the account's listing is alive; one missing from it is confirmed with
 * get/serviceid before the resource is dropped from state, because the listing may leave out KVMs in some
 * states. Outputs the API cannot see (order, invoice, inputs) are kept from state.
 */
export async function readServer(ctx: Context, id: string, props: Record<string, unknown>): Promise<ReadResult> {
    const serviceId = Number(id);
    if (!Number.isInteger(serviceId) || serviceId <= 0) throw new Error(`"${id}" is not an EDIS service id`);
    let kvmId = typeof props.kvmId === "string" ? props.kvmId : undefined;
    if (!kvmId) {
        // A server that failed to initialise, or one brought in with KvmServer.get(): ask for its KVM.
        try {
            kvmId = await ctx.client.getKvmId(serviceId);
        } catch (e) {
            if (isEdisApiError(e) && e.kind === "not_found") return GONE;
            throw e;
        }
        if (!kvmId) return { id, props: compact({ ...props, serviceId }) };
    }
    const session = (await ctx.sessions.all()).get(kvmId);
    if (!session) {
        try {
            await ctx.client.getServiceId(kvmId);
        } catch (e) {
            if (isEdisApiError(e) && e.kind === "not_found") return GONE;
            throw e;
        }
        return { id, props: compact({ ...props, serviceId, kvmId }) };
    }
    return { id, props: compact({ ...props, serviceId, ...sessionOutputs(session) }) };
}

/**
 * An update of a suspended server (the diff reports the suspension): reads it again, so that a server EDIS
 * has resumed since the last refresh stops showing as changed, and says what to do when it has not.
 */
export async function recheckSuspension(ctx: Context, outs: KvmServerOutputs): Promise<KvmServerOutputs> {
    const session = outs.kvmId ? await ctx.sessions.one(outs.kvmId) : undefined;
    const now = session ? compact({ ...outs, ...sessionOutputs(session) }) : outs;
    if (now.suspended) {
        ctx.log(
            `warning: ${outs.hostname} (service ${outs.serviceId}) is suspended at EDIS, and Pulumi cannot resume it. ` +
                `An unpaid invoice is the usual cause: see the EDIS client area. It shows as a change until EDIS resumes it.`,
        );
    }
    return now;
}

/**
 * Changes plan and/or billing cycle through add/upgrade. EDIS only upgrades within a location, so the new
 * plan's location is checked first; a cross-location change is refused before anything is bought.
 */
export async function upgradeServer(ctx: Context, olds: KvmServerOutputs, news: KvmServerInputs): Promise<void> {
    const name = `${olds.hostname} (service ${olds.serviceId})`;
    const replaceHint =
        `To move it instead, replace the server: add \`replaceOnChanges: ["planId"]\` to its resource options ` +
        `(a new server is ordered, then this one is cancelled).`;
    if (!olds.kvmId) throw new Error(`cannot change the plan of ${name}: it is not provisioned yet. Run \`pulumi up\` again once it is.`);
    const paymentMethod = resolvePaymentMethod(news.paymentMethod, ctx.config, `changing the plan of ${name}`);
    const [from, to, methods] = await Promise.all([
        ctx.catalogue.findPlan(olds.planId),
        ctx.catalogue.findPlan(news.planId),
        ctx.catalogue.paymentMethods(),
    ]);
    if (!to) throw new Error(`planId ${news.planId} is not a product at any location; nothing was changed (see edis.getPlans())`);
    if (from && from.location.id !== to.location.id) {
        throw new Error(
            `planId ${news.planId} (${to.plan.name}) is at ${to.location.name}, but ${name} is at ${from.location.name}; ` +
                `EDIS changes plans only within a location, so nothing was changed. ${replaceHint}`,
        );
    }
    const problems = [billingCycleProblem(to.plan, news.billingCycle), paymentMethodProblem(methods, paymentMethod)].filter(Boolean);
    if (problems.length) throw new Error(`nothing was changed for ${name}: ${problems.join("; ")}`);
    try {
        const result = await ctx.client.addUpgrade({
            kvmId: olds.kvmId,
            newPid: news.planId,
            newBillingCycle: news.billingCycle,
            newPaymentMethod: paymentMethod,
        });
        ctx.log(
            `changed ${name} from plan ${olds.planId} to ${news.planId}, ${news.billingCycle}: upgrade order ${result.orderId ?? "?"}, ` +
                `invoice ${result.invoiceId ?? "?"}`,
        );
    } catch (e) {
        if (isEdisApiError(e) && e.kind === "bad_request") throw new Error(`EDIS refused to change ${name}: ${e.message}. ${replaceHint}`);
        if (isEdisApiError(e) && e.outcomeUnknown) {
            throw new Error(
                `the plan change of ${name} may or may not have been made: ${e.message}. It was not retried, so that it cannot be ` +
                    `billed twice. Check the service in the EDIS client area before running \`pulumi up\` again.`,
            );
        }
        throw e;
    } finally {
        ctx.sessions.invalidate();
    }
}

/** Cancels; a server that is already cancelled or unknown counts as cancelled. */
export async function cancelServer(ctx: Context, id: string, props: Record<string, unknown>): Promise<void> {
    const type = (props.cancellationType as CancellationType | undefined) ?? ctx.config.cancellationType ?? DEFAULT_CANCELLATION_TYPE;
    const serviceId = Number(id);
    const kvmId = typeof props.kvmId === "string" ? props.kvmId : undefined;
    try {
        await ctx.client.cancelProduct({ serviceId, kvmId, type });
        ctx.log(`cancelled ${String(props.hostname ?? "")} (service ${serviceId}${kvmId ? `, ${kvmId}` : ""}): ${type}`);
    } catch (e) {
        const alreadyGone =
            isEdisApiError(e) &&
            (e.kind === "not_found" || (e.kind === "bad_request" && /already\s+(been\s+)?cancel|not\s+active|terminated/i.test(e.serverMessage ?? "")));
        if (!alreadyGone) throw e;
        ctx.log(`service ${serviceId} is already cancelled or unknown to EDIS (${(e as Error).message}); removing it from state`);
    } finally {
        ctx.sessions.invalidate();
    }
}
