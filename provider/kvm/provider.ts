/** The KvmServer dynamic provider as the engine calls it, in Pulumi's dynamic-provider host via the sdk/ shim (runtime.ts). */
import type * as pulumi from "@pulumi/pulumi";
import { ConfigureRequest, Core } from "../runtime";
import { preflight } from "./preflight";
import { Context, ServerInitError } from "../context";
import { UNCONFIRMED, UNFINISHED, UPGRADE_IN_PLACE, diffKvmServer, needsUpgrade } from "./diff";
import { currentListPrice, withoutNoExtraAddons } from "./orderCheck";
import { RESOURCE_ALIASES, RESOURCE_KEY, adoptionKey, forgetService, identityOf } from "../journal";
import { HOLDER_TOKEN, checkCancelHolder, checkImportHolder, heldElsewhereError, holderToken, recordHolder } from "./holders";
import { defaultJournalDir } from "../journal/location";
import { INPUT_NAMES, KvmServerOutputs, ORDER_BATCH, checkInputs, compact, inputsOf, resourceKeyOf } from "./inputs";
import { cancelServer, checkLocation, confirmBatchPlaceLive, readServer, recheckListing, recheckSuspension, upgradeServer } from "./operations";
import { createServer, resumeServer } from "./orderFlow";
import { MANAGES_POWER, applyPowerState } from "./power";

/** Outputs that are not inputs (service id, KVM id, session fields), kept across an update. */
function computedOf(olds: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(
        Object.entries(olds).filter(([k]) => k !== "__provider" && k !== RESOURCE_KEY && k !== RESOURCE_ALIASES && k !== MANAGES_POWER && !(INPUT_NAMES as readonly string[]).includes(k)),
    );
}

/** The engine stores a failed create's outputs as the error carries them; without `__provider` there, `pulumi destroy` fails. */
function keepProvider(e: unknown, inputs: Record<string, unknown>): unknown {
    if (e instanceof ServerInitError) Object.assign(e.properties, markPower({ __provider: inputs.__provider }, inputs));
    return e;
}

/** Records the holder of a server this resource ordered; a failure only warns: its service id must reach the engine. */
async function holdOrdered(c: Context, key: string | undefined, outs: KvmServerOutputs, log: (line: string) => void): Promise<Record<string, string>> {
    await recordHolder(c.journal, key, outs, false).catch((e: Error) =>
        log(`warning: ${outs.hostname} (service ${outs.serviceId}) could not be recorded as this resource's in the order journal: ${e.message}`),
    );
    return { [HOLDER_TOKEN]: holderToken(key, outs.serviceId) };
}

function runsInCi(): boolean {
    const ci = process.env.CI;
    return (!!ci && ci !== "false" && ci !== "0") || ["GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD", "CIRCLECI"].some((k) => !!process.env[k]);
}

function holdingOf(key: string | undefined, id: string, props: { kvmId?: unknown }) {
    return { key, serviceId: Number(id) || undefined, kvmId: typeof props.kvmId === "string" ? props.kvmId : undefined };
}

function markPower<T extends object>(outs: T, inputs: Record<string, unknown>): T {
    return { ...outs, [MANAGES_POWER]: inputs.powerState !== undefined };
}

/** The list price of what was just ordered or upgraded, from the catalogue the order was checked against; absent when it cannot be told. */
async function priced(c: Context, outs: KvmServerOutputs): Promise<KvmServerOutputs> {
    const price = await currentListPrice(c.catalogue, outs);
    return compact({ ...outs, listPrice: price && { amount: price.amount, billingCycle: price.billingCycle, currency: price.currency, monthly: price.monthly } });
}

/** Why the plan shows an update for a server whose inputs did not change. */
const STATUS_NOTES = {
    suspended: "is suspended at EDIS: the plan shows it as an update, which re-reads it",
    notListed: "was not in the account's listing at the last refresh: the plan shows it as an update, which looks for it again (nothing is ordered)",
    [UNFINISHED]: "was ordered but is not provisioned yet: the plan shows it as an update, which waits for it (nothing is ordered)",
    [UNCONFIRMED]: "holds its service by its place in a batched order, which no description of its KVM has confirmed yet: the plan shows it as an update, which checks it first (nothing is ordered)",
};

/** KvmServer on one core (runtime.ts), as both doors serve it. */
export function kvmServerOn(core: Core) {
    const { ctx, currentConfig, holders, journal, log, logOnce, noteReplacement, settleJournal } = core;
    return {
        async configure(req: ConfigureRequest): Promise<void> {
            core.configure(req);
        },

        async check(olds: Record<string, unknown>, news: Record<string, unknown>) {
            const config = currentConfig();
            if (runsInCi() && config.journal.kind === "file" && config.journal.dir === defaultJournalDir()) {
                logOnce(
                    `warning: this deployment runs in CI with the order journal on this machine's disk (${config.journal.dir}). A runner that ` +
                        `is thrown away after the job takes the journal with it: a job killed after an order was placed leaves no record, and ` +
                        `the next job orders that server again. Set edis:journalUrl to an S3 location that outlives the runner ` +
                        `(docs/guides/ci-and-the-shared-journal.md).`,
                );
            }
            const checked = checkInputs(news, olds);
            if (checked.failures.length) return checked;
            const failures = await preflight({ config: currentConfig(), context: ctx, journal: journal(), log: logOnce, ordering: core.ordering }, olds, checked.inputs);
            return failures.length ? { inputs: checked.inputs, failures } : checked;
        },

        async diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
            holders.see(holdingOf(resourceKeyOf(news) ?? resourceKeyOf(olds), id, olds), true);
            await settleJournal(olds);
            const { replaces, changed, deleteBeforeReplace } = await withoutNoExtraAddons(() => core.ctx().catalogue, olds, diffKvmServer(olds, news), news);
            // The host passes no list of changed properties to the engine, so say here why the plan shows an update or a replacement.
            const name = `${String(olds.hostname)} (service ${id})`;
            for (const [status, why] of Object.entries(STATUS_NOTES)) if (changed.includes(status)) logOnce(`${name} ${why}`);
            if (replaces.length) {
                noteReplacement(news[RESOURCE_KEY] ?? olds[RESOURCE_KEY], Number(id), olds.kvmId);
                logOnce(`${name} is replaced because ${replaces.join(", ")} changed: a new server is ordered, then this one is cancelled`);
            }
            // `changed` names the inputs by meaning (a host name's case is no change): the plugin's detailed diff.
            return { changes: changed.length > 0, replaces, deleteBeforeReplace, changed };
        },

        async create(inputs: Record<string, unknown>) {
            try {
                const c = ctx();
                const key = resourceKeyOf(inputs);
                const adopting = typeof inputs.adoptKvmId === "string" ? inputs.adoptKvmId : undefined;
                if (adopting) holders.checkAdoption(key, adopting);
                const created = await c.flights.run(() => createServer(c, inputsOf(inputs), identityOf(inputs)));
                if (adopting) holders.checkAdoption(key, created.outs.kvmId ?? adopting, Number(created.id));
                else created.outs = await priced(c, created.outs);
                holders.see(holdingOf(key, created.id, created.outs), true);
                // An adoption that cannot be recorded fails: the holder before it would keep the right to cancel.
                const held = adopting ? { [HOLDER_TOKEN]: await recordHolder(c.journal, key, created.outs, true) } : await holdOrdered(c, key, created.outs, log);
                return { ...created, outs: { ...markPower(created.outs, inputs), ...held } };
            } catch (e) {
                throw keepProvider(e, inputs);
            }
        },

        async read(id: string, props: Record<string, unknown>) {
            await settleJournal(props);
            const read = await readServer(ctx(), id, props);
            // An import (no outputs yet, a URN) is a resource the program declares: it may not share a server with another.
            const key = resourceKeyOf(props);
            const importing = props.serviceId === undefined;
            if (read.id && importing && key) await checkImportHolder(ctx().journal, `${String(read.props?.description ?? "the server")} (service ${read.id})`, key, Number(read.id));
            if (read.id) holders.see(holdingOf(key, read.id, read.props), importing);
            return read;
        },

        async update(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
            await settleJournal(olds);
            const c = ctx();
            const inputs = inputsOf(news);
            const key = resourceKeyOf(news) ?? resourceKeyOf(olds);
            // The location the server was ordered in stays recorded when the program leaves locationId out.
            const locationId = inputs.locationId ?? (olds.locationId as number | undefined);
            // What EDIS bills stays as it was until the plan change is made: a failure before it leaves state saying so.
            const upgrade = needsUpgrade(olds, news);
            const billed = upgrade ? Object.fromEntries(UPGRADE_IN_PLACE.map((k) => [k, olds[k]])) : {};
            let outs = compact({ ...computedOf(olds), ...inputs, ...billed, [RESOURCE_KEY]: key, locationId, serviceId: Number(id) }) as KvmServerOutputs;
            if (inputs.locationId !== undefined && olds.locationId == null && outs.planId !== undefined) await checkLocation(c, outs);
            outs = await confirmBatchPlaceLive(c, outs);
            // A create that stopped after its order: one without a KVM yet, or one whose batched place was not confirmed.
            const finishing = !outs.kvmId || olds[ORDER_BATCH] !== undefined;
            if (!outs.kvmId) {
                // The create of this server stopped after its order: finish it (throws with the id if it cannot).
                try {
                    const stopped = outs;
                    outs = await c.flights.run(() => resumeServer(c, stopped));
                } catch (e) {
                    throw keepProvider(e, news);
                }
            }
            // A create finished now was an order (an adopted server is provisioned already): priced as a create is.
            if (finishing && !outs.listPrice) outs = await priced(c, outs);
            if (finishing && !olds[HOLDER_TOKEN]) outs = { ...outs, ...(await holdOrdered(c, key, outs, log)) };
            // Entries written under the key state recorded (before a stack rename or an alias) are this resource's too.
            const identity = identityOf({ ...news, [RESOURCE_KEY]: key });
            if (identity && typeof olds[RESOURCE_KEY] === "string" && olds[RESOURCE_KEY] !== key) identity.aliases.push(olds[RESOURCE_KEY] as string);
            if (upgrade) {
                await upgradeServer(c, { ...(olds as unknown as KvmServerOutputs), kvmId: outs.kvmId }, inputs, identity);
                outs = await priced(c, compact({ ...outs, planId: inputs.planId, billingCycle: inputs.billingCycle }));
            }
            if (outs.suspended) outs = await recheckSuspension(c, outs);
            if (outs.notListed) outs = await recheckListing(c, outs);
            if (inputs.powerState) outs = await applyPowerState(c, outs, inputs.powerState);
            else outs = compact({ ...outs, powerState: undefined, trafficSuspended: undefined });
            holders.see(holdingOf(key, id, outs), true);
            return { outs: markPower(outs, news) };
        },

        async delete(id: string, props: Record<string, unknown>) {
            const c = ctx();
            const key = resourceKeyOf(props);
            // No delete cancels a server that another resource of the program holds, or adopted (holders.ts).
            const name = `${String(props.hostname ?? "")} (service ${id})`;
            const holder = holders.otherHolder(holdingOf(key, id, props));
            if (holder) throw heldElsewhereError(name, key, holder);
            await checkCancelHolder(c.journal, name, key, Number(id), props[HOLDER_TOKEN]);
            await confirmBatchPlaceLive(c, props as Partial<KvmServerOutputs>, true);
            await cancelServer(c, id, props);
            // Cancelled: a journal that cannot be tidied now is tidied by a later run; the cancellation stands.
            const tidy = (p: Promise<void>) => p.catch((e) => log(`warning: the order journal could not be tidied: ${(e as Error).message}`));
            await tidy(c.journal.clear(adoptionKey(Number(id)), "adoption"));
            if (key) await tidy(forgetService(c.journal, key, Number(id)));
        },
    } satisfies pulumi.dynamic.ResourceProvider;
}
