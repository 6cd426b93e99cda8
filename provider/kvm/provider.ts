/**
 * The KvmServer dynamic provider as the engine calls it (configure, check, diff, create, read, update,
 * delete). Runs inside Pulumi's dynamic-provider host, reached from the serialized shim in sdk/ through
 * `require("pulumi-edis/provider")`. One host process serves every KvmServer of a deployment, so the
 * context (client, caches) is built once and shared.
 */
import { ConfigureRequest, configure, ctx, log, settleJournal } from "../runtime";
import { ServerInitError } from "./context";
import { UNFINISHED, diffKvmServer, needsUpgrade } from "./diff";
import { RESOURCE_KEY, forgetService } from "../journal";
import { INPUT_NAMES, KvmServerOutputs, checkInputs, compact, inputsOf, resourceKeyOf } from "./inputs";
import { cancelServer, checkLocation, readServer, recheckSuspension, upgradeServer } from "./operations";
import { createServer, resumeServer } from "./orderFlow";
import { applyPowerState } from "./power";

/** Outputs that are not inputs (service id, KVM id, session fields), kept across an update. */
function computedOf(olds: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(
        Object.entries(olds).filter(([k]) => k !== "__provider" && k !== RESOURCE_KEY && !(INPUT_NAMES as readonly string[]).includes(k)),
    );
}

/**
 * The engine stores a failed-to-initialise resource's outputs exactly as the error carries them, and the
 * provider host finds the provider for delete and refresh in those outputs. Without `__provider` there,
 * `pulumi destroy` of that server would fail, so it is copied in from the inputs.
 */
function keepProvider(e: unknown, inputs: Record<string, unknown>): unknown {
    if (e instanceof ServerInitError) (e.properties as Record<string, unknown>).__provider = inputs.__provider;
    return e;
}

export const kvmServer = {
    async configure(req: ConfigureRequest): Promise<void> {
        configure(req);
    },

    async check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
        return checkInputs(news);
    },

    async diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
        settleJournal(olds);
        const { changes, replaces, changed, deleteBeforeReplace } = diffKvmServer(olds, news);
        // The host passes no list of changed properties to the engine, so say here why the plan shows an update.
        if (changed.includes("suspended")) {
            log(`${String(olds.hostname)} (service ${id}) is suspended at EDIS: the plan shows it as an update, which re-reads it`);
        }
        if (changed.includes(UNFINISHED)) {
            log(`${String(olds.hostname)} (service ${id}) was ordered but is not provisioned yet: the plan shows it as an update, which waits for it (nothing is ordered)`);
        }
        // The dynamic host reports no per-property diff, so the plan cannot say why it replaces: the log does.
        if (replaces.length) {
            log(`${String(olds.hostname)} (service ${id}) is replaced because ${replaces.join(", ")} changed: a new server is ordered, then this one is cancelled`);
        }
        return { changes, replaces, deleteBeforeReplace };
    },

    async create(inputs: Record<string, unknown>) {
        try {
            return await createServer(ctx(), inputsOf(inputs), resourceKeyOf(inputs));
        } catch (e) {
            throw keepProvider(e, inputs);
        }
    },

    async read(id: string, props: Record<string, unknown>) {
        settleJournal(props);
        return readServer(ctx(), id, props);
    },

    async update(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
        settleJournal(olds);
        const c = ctx();
        const inputs = inputsOf(news);
        const key = resourceKeyOf(news) ?? resourceKeyOf(olds);
        // The location the server was ordered in stays recorded when the program leaves locationId out.
        const locationId = inputs.locationId ?? (olds.locationId as number | undefined);
        let outs = compact({ ...computedOf(olds), ...inputs, [RESOURCE_KEY]: key, locationId, serviceId: Number(id) }) as KvmServerOutputs;
        if (inputs.locationId !== undefined && olds.locationId == null) await checkLocation(c, outs);
        if (!outs.kvmId) {
            // The create of this server stopped after its order: finish it (throws with the id if it cannot).
            try {
                outs = await resumeServer(c, outs);
            } catch (e) {
                throw keepProvider(e, news);
            }
        }
        if (needsUpgrade(olds, news)) await upgradeServer(c, { ...(olds as unknown as KvmServerOutputs), kvmId: outs.kvmId }, inputs, key);
        if (outs.suspended) outs = await recheckSuspension(c, outs);
        // Power: switched when the program manages it; otherwise the state last reported stays in the outputs.
        if (inputs.powerState) outs = await applyPowerState(c, outs, inputs.powerState);
        else outs = compact({ ...outs, powerState: olds.powerState as KvmServerOutputs["powerState"] });
        return { outs };
    },

    async delete(id: string, props: Record<string, unknown>) {
        await cancelServer(ctx(), id, props);
        const key = resourceKeyOf(props);
        if (key) forgetService(ctx().journal, key, Number(id));
    },
};
