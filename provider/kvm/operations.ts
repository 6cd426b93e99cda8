/** What a KvmServer does after it exists: read its live state, change plan or billing cycle in place, cancel. */
import type { ReadResult } from "@pulumi/pulumi/dynamic";
import { refusedInEdisForm } from "../client/answers";
import { isEdisApiError } from "../client/errors";
import { ENDPOINTS } from "../client/client";
import { CancellationType, UpgradeResult } from "../client/model";
import { DEFAULT_CANCELLATION_TYPE } from "../config";
import { Context } from "../context";
import { Identity, RESOURCE_KEY, UpgradeEntry, changedTo, entryFor, resolveCommand } from "../journal";
import { WriteOutcomeUnknownError, sendOnce } from "../paidWrite";
import { KvmServerInputs, KvmServerOutputs, NOT_LISTED, ORDER_BATCH, compact, resourceKeyOf, sessionOutputs } from "./inputs";
import { managesPower, readPowerState } from "./power";
import { confirmBatchPlace, requireBatchPlace, unconfirmedPlace } from "./batchCheck";
import { stateDelete } from "./holders";
import { REPLACE_HINT, checkUpgrade, resolvePaymentMethod } from "./orderCheck";

/** The engine's "gone": a read with an empty id removes the resource from state. */
const GONE = { id: "", props: {} } satisfies ReadResult;

export type Observation = { gone: true; words: string } | { gone: false; why: string };

async function lookupRefused(name: string, lookup: Promise<unknown>): Promise<{ refused: boolean; words: string }> {
    try {
        const found = await lookup;
        return { refused: false, words: `${name} still answers${found !== undefined ? ` (${String(found)})` : ""}` };
    } catch (e) {
        if (isEdisApiError(e)) return { refused: refusedInEdisForm(e), words: e.message };
        throw e;
    }
}

/** Gone: unlisted, both id lookups refusing in EDIS's form; never without a KVM (maybe unprovisioned, yet billed). */
export async function observe(ctx: Context, serviceId: number, kvmId: string | undefined): Promise<Observation> {
    if (!kvmId) return { gone: false, why: "it has no KVM yet (an unpaid invoice, or not provisioned), so no answer can show it gone" };
    const listing = await ctx.sessions.all();
    if (listing.has(kvmId)) return { gone: false, why: `its KVM ${kvmId} is still in the account's listing (get/auth)` };
    if (listing.unidentified()) return { gone: false, why: `an entry of the account's listing (get/auth) cannot be read and may be ${kvmId}'s` };
    const [byService, byKvm] = await Promise.all([
        lookupRefused("get/kvmid", ctx.client.getKvmId(serviceId)),
        lookupRefused("get/serviceid", ctx.client.getServiceId(kvmId)),
    ]);
    const words = `${byService.words}; ${byKvm.words}`;
    if (byService.refused && byKvm.refused) return { gone: true, words };
    return { gone: false, why: `its KVM ${kvmId} is not in the account's listing, but EDIS does not confirm it gone (${words})` };
}

/** Live state for refresh: an unlisted KVM leaves state only when observe shows it gone, else it stays marked NOT_LISTED. */
export async function readServer(ctx: Context, id: string, props: Record<string, unknown>): Promise<Required<Pick<ReadResult<Record<string, unknown>>, "id" | "props">>> {
    const serviceId = Number(id);
    if (!Number.isInteger(serviceId) || serviceId <= 0) throw new Error(`"${id}" is not an EDIS service id`);
    const name = `${String(props.hostname ?? "")} (service ${serviceId})`;
    let kvmId = typeof props.kvmId === "string" ? props.kvmId : undefined;
    if (!kvmId) {
        // A server that failed to initialise, or one brought in with KvmServer.get() or `pulumi import`: ask for its KVM.
        try {
            kvmId = await ctx.client.getKvmId(serviceId);
        } catch (e) {
            if (!isEdisApiError(e) || e.kind === "credentials") throw e;
            // An id that a `get` or an import asks about (no outputs yet) and that EDIS refuses does not exist here.
            if (props.serviceId === undefined && refusedInEdisForm(e)) return GONE;
            if (props.serviceId === undefined) throw e;
            // "Not provisioned yet" may look like any refusal, so a server in state (it has outputs) stays.
            ctx.log(`${name} has no KVM yet (${e.message}); kept in state`);
        }
        if (!kvmId) return { id, props: compact({ ...props, serviceId }) };
    }
    const listing = await ctx.sessions.all();
    let session;
    try {
        session = listing.get(kvmId);
    } catch (e) {
        // Its own entry could not be read: this server is kept as it was, and every other one is read as usual.
        if (!isEdisApiError(e) || e.kind !== "unexpected_answer") throw e;
        ctx.log(`warning: ${name} is kept in the stack's state as it was: ${e.message}`);
        return { id, props: compact({ ...props, serviceId }) };
    }
    if (session) {
        const live = confirmBatchPlace({ ...props, serviceId, ...sessionOutputs(session), [NOT_LISTED]: undefined });
        const power = managesPower(props) ? await readPowerState(ctx, session, props.hostname) : {};
        return { id, props: compact({ ...live, ...power }) };
    }
    const seen = await observe(ctx, serviceId, kvmId);
    if (seen.gone) {
        ctx.log(`${name} is gone at EDIS: not in the account's listing, and both id lookups refuse it (${seen.words}); removed from the stack's state`);
        return GONE;
    }
    ctx.log(notListedWarning(name, seen.why, resourceKeyOf(props)));
    return { id, props: compact({ ...props, serviceId, kvmId, [NOT_LISTED]: true }) };
}

function notListedWarning(name: string, why: string, key: string | undefined): string {
    return (
        `warning: ${name} is kept in the stack's state and shown as a change: ${why}. Check it in the EDIS client area. If it ` +
        `runs, nothing is needed (the next refresh finds it). If it is cancelled, \`pulumi refresh\` removes it once EDIS stops ` +
        `naming it, or remove it yourself with \`${stateDelete(key)}\`.`
    );
}

/**
 * Before an update or delete of a server held by its place in a batched order, its KVM's live description must confirm
 * it. `lookUp` (a delete): a server with no KVM in state may have one now, so EDIS is asked; only an answer naming none
 * leaves the item order as all there is to go on.
 */
export async function confirmBatchPlaceLive<T extends Partial<KvmServerOutputs>>(ctx: Context, outs: T, lookUp = false): Promise<T> {
    if (!outs[ORDER_BATCH]) return outs;
    let kvmId = typeof outs.kvmId === "string" ? outs.kvmId : undefined;
    if (!kvmId && lookUp) {
        try {
            kvmId = await ctx.client.getKvmId(Number(outs.serviceId));
        } catch (e) {
            // A refused login or a request that never left says nothing of this server: it is reported as it is.
            if (!isEdisApiError(e) || e.kind === "credentials" || e.kind === "not_sent") throw e;
            throw unconfirmedPlace(outs, `asked for its KVM, ${e.message}`);
        }
    }
    if (!kvmId) return outs;
    const session = (await ctx.sessions.all()).get(kvmId) ?? (await ctx.sessions.one(kvmId));
    const why = session ? "EDIS's listing gives its KVM no description" : `its KVM ${kvmId} is not in the account's listing (get/auth)`;
    return requireBatchPlace({ ...outs, kvmId, ...(session ? sessionOutputs(session) : {}) }, why);
}

/** A locationId given to a server whose state records none: the server's plan must be at that location. */
export async function checkLocation(ctx: Context, outs: KvmServerOutputs): Promise<void> {
    const home = await ctx.catalogue.findPlan(outs.planId);
    if (home && home.location.id !== outs.locationId) {
        throw new Error(
            `${outs.hostname} (service ${outs.serviceId}) is at ${home.location.name} (locationId ${home.location.id}), not at ` +
                `locationId ${outs.locationId}; nothing was changed. Leave locationId out to keep it where it is; to move it, set ` +
                `\`replaceOnPlanChange: true\` and a planId of the new location (a new server is ordered there, then this one is cancelled).`,
        );
    }
}

/** An update of a suspended server: read again, so one EDIS has resumed since the refresh stops showing as changed; else says what to do. */
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

/** An update of a server the last refresh did not list (NOT_LISTED): looked for again; one still missing stays marked, with what to do. */
export async function recheckListing(ctx: Context, outs: KvmServerOutputs): Promise<KvmServerOutputs> {
    const session = outs.kvmId ? (await ctx.sessions.all()).get(outs.kvmId) : undefined;
    if (session) return compact({ ...outs, ...sessionOutputs(session), [NOT_LISTED]: undefined });
    ctx.log(notListedWarning(`${outs.hostname} (service ${outs.serviceId})`, "it is still not in the account's listing", outs[RESOURCE_KEY]));
    return outs;
}

/** Changes plan and/or billing cycle through add/upgrade, sent once; a cross-location change is refused before anything is bought. */
export async function upgradeServer(ctx: Context, olds: KvmServerOutputs, news: KvmServerInputs, id?: Identity): Promise<void> {
    const name = `${olds.hostname} (service ${olds.serviceId})`;
    if (!olds.kvmId) throw new Error(`cannot change the plan of ${name}: it is not provisioned yet. Run \`pulumi up\` again once it is.`);
    if (!news.billingCycle || !news.planId) {
        throw new Error(`cannot change the plan of ${name}: it was adopted, and EDIS does not report its plan or billing cycle. Set both planId and billingCycle to what it has now, run \`pulumi up\` (that records them and orders nothing), then change them.`);
    }
    const key = id?.key;
    // Another stack's entry is this resource's when it is of this service and not a finished change state shows already.
    const shown = (e: UpgradeEntry) => e.state === "done" && changedTo(e, olds.planId, olds.billingCycle);
    const journaled = id ? await entryFor(ctx.journal, id, "upgrade", ctx.log, (e) => e.serviceId === olds.serviceId && !shown(e)) : undefined;
    const resolution = (k: string) =>
        `Check the service's plan in the EDIS client area. If the change was made, run \`${resolveCommand("confirm", k, ctx.journal, "upgrade")}\`; ` +
        `if it was not, run \`${resolveCommand("forget", k, ctx.journal, "upgrade")}\`. Then run \`pulumi up\` again.`;
    if (journaled && journaled.serviceId === olds.serviceId) {
        if (journaled.state === "done" && changedTo(journaled, news.planId, news.billingCycle)) {
            ctx.log(`${name}: the change to plan ${news.planId}, ${news.billingCycle} was made at ${journaled.sentAt} (order journal); not sent again`);
            return;
        }
        if (journaled.state !== "done") {
            throw new WriteOutcomeUnknownError(
                `an earlier change of ${name} to plan ${journaled.toPlanId}, ${journaled.billingCycle} (sent ${journaled.sentAt})`,
                journaled.problem ?? "the deployment that sent it stopped before its answer was recorded",
                resolution(journaled.key),
            );
        }
        // A change made that state does not show (its engine died) is recorded first, never dropped: undone, a later
        // change back to it would be paid again.
        if (!shown(journaled)) {
            throw new Error(
                `${name} was changed at EDIS to plan ${journaled.toPlanId}, ${journaled.billingCycle} at ${journaled.sentAt} (order journal), ` +
                    `but the stack's state records plan ${olds.planId}, ${String(olds.billingCycle)}. Nothing was changed: declare plan ` +
                    `${journaled.toPlanId}, ${journaled.billingCycle} and run \`pulumi up\` to record it (nothing is sent), then change it.`,
            );
        }
        await ctx.journal.clear(journaled.key, "upgrade"); // a change made earlier, which state has; this one is another
    } else if (journaled) {
        // A change of another server this resource held (a replacement's old half): settled by the user, never dropped.
        if (journaled.state !== "done") {
            throw new WriteOutcomeUnknownError(
                `an earlier change of service ${journaled.serviceId} (${journaled.kvmId}), a server this resource held before ${name}, to plan ${journaled.toPlanId}, ${journaled.billingCycle} (sent ${journaled.sentAt})`,
                journaled.problem ?? "the deployment that sent it stopped before its answer was recorded",
                resolution(journaled.key),
            );
        }
        await ctx.journal.clear(journaled.key, "upgrade");
    }
    // After the journal: a change EDIS made is recorded whatever the catalogue says now (stock limits new capacity only).
    const paymentMethod = resolvePaymentMethod(news.paymentMethod, ctx.config, `changing the plan of ${name}`);
    await checkUpgrade(ctx.catalogue, name, olds.planId, news, paymentMethod);
    const entry: UpgradeEntry | undefined = key
        ? {
              kind: "upgrade",
              state: "sending",
              key,
              hostname: olds.hostname,
              sentAt: new Date().toISOString(),
              serviceId: olds.serviceId,
              kvmId: olds.kvmId,
              fromPlanId: olds.planId,
              toPlanId: news.planId,
              billingCycle: news.billingCycle,
          }
        : undefined;
    try {
        const outcome = await sendOnce<UpgradeEntry, UpgradeResult>({
            journal: ctx.journal,
            entry,
            endpoint: ENDPOINTS.upgrade.path,
            log: ctx.log,
            cancelled: ctx.cancelled,
            send: () => ctx.client.addUpgrade({ kvmId: olds.kvmId!, serviceId: olds.serviceId, newPid: news.planId, newBillingCycle: news.billingCycle, newPaymentMethod: paymentMethod }),
            made: (sending) => ({ ...sending, state: "done" }),
            // An answer naming an upgrade order or invoice: something was made, perhaps billed; the user says whether the plan changed.
            madeDespite: (sending, e) =>
                e.orderId !== undefined || e.invoiceId !== undefined || e.serviceIds?.length ? { ...sending, state: "unknown", problem: e.message } : undefined,
            unknown: (problem, unknown) =>
                new WriteOutcomeUnknownError(`the plan change of ${name}`, problem, unknown ? resolution(unknown.key) : `Do so before running \`pulumi up\` again.`),
        });
        if ("named" in outcome) {
            throw new WriteOutcomeUnknownError(`the plan change of ${name}`, outcome.named.message, entry ? resolution(entry.key) : "Check it in the EDIS client area.");
        }
        const result = outcome.answered;
        ctx.log(
            `changed ${name} from plan ${olds.planId} to ${news.planId}, ${news.billingCycle}: upgrade order ${result.orderId ?? "?"}, ` +
                `invoice ${result.invoiceId ?? "?"}`,
        );
    } catch (e) {
        if (isEdisApiError(e)) throw new Error(`EDIS refused to change ${name}; nothing was changed: ${e.message}. ${REPLACE_HINT}`);
        throw e;
    } finally {
        ctx.sessions.invalidate();
    }
}

/** Cancels; on failure the server leaves state only if observe shows it gone, else it stays (it may still be billed). */
export async function cancelServer(ctx: Context, id: string, props: Record<string, unknown>): Promise<void> {
    const type = (props.cancellationType as CancellationType | undefined) ?? ctx.config.cancellationType ?? DEFAULT_CANCELLATION_TYPE;
    const serviceId = Number(id);
    const kvmId = typeof props.kvmId === "string" ? props.kvmId : undefined;
    const name = `${String(props.hostname ?? "")} (service ${serviceId}${kvmId ? `, ${kvmId}` : ""})`;
    try {
        await ctx.client.cancelProduct({ serviceId, kvmId, type });
        ctx.log(`cancelled ${name}: ${type}`);
    } catch (e) {
        if (!isEdisApiError(e) || e.kind === "credentials" || e.kind === "not_sent") throw e;
        ctx.sessions.invalidate();
        let seen: Observation;
        try {
            seen = await observe(ctx, serviceId, kvmId);
        } catch (looked) {
            seen = { gone: false, why: `whether EDIS still has it could not be seen (${(looked as Error).message})` };
        }
        if (seen.gone) {
            ctx.log(`${name} was not cancelled by this request (${e.message}), but it is gone at EDIS (${seen.words}); removing it from state`);
            return;
        }
        throw new Error(
            `${name} was not cancelled: ${e.message}. It stays in the stack's state, because ${seen.why}, and it may still be billed. ` +
                `Check service ${serviceId} in the EDIS client area: if it is still active, run \`pulumi destroy\` (or \`pulumi up\`) again, ` +
                `or cancel it there. If it is cancelled or scheduled to end and you want Pulumi to stop tracking it, run ` +
                `\`${stateDelete(resourceKeyOf(props))}\`.`,
        );
    } finally {
        ctx.sessions.invalidate();
    }
}
