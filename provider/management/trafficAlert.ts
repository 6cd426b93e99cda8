/**
 * TrafficAlert: a traffic webhook of one server (hooks/set), which EDIS calls when the server has used the given
 * percentage of its traffic allowance.
 *
 *   read the journal            ─ a hook known to exist is taken as created; an unknown outcome blocks a new one
 *   journal "sending", hooks/set once   ─ never repeated: each call adds a hook, and hooks cannot be listed
 *   journal "done" with the hook id     ─ removed once the engine's state has the hook
 *   delete                      ─ hooks/del; a hook or server EDIS no longer knows is already gone
 *
 * Every input replaces: EDIS has no call to change a hook. The callback password is never an output: state keeps
 * a salted scrypt digest (an additionalSecretOutput) so that a new password is seen as a change.
 */
import { isEdisApiError } from "../client/errors";
import { CallbackMethod, TrafficHookRequest } from "../client/model";
import { FieldRule, UNKNOWN, compact, show } from "../fields";
import { HookEntry, RESOURCE_KEY, resolveCommand } from "../journal";
import { ctx, settleJournal } from "../runtime";
import { KVM_ID_RULE, configuredResource, secretRule, serverGone, withoutSecrets } from "./common";
import { digestSecret, matchesDigest } from "./secretDigest";

const RULES: Record<string, FieldRule> = {
    kvmId: KVM_ID_RULE,
    callbackUrl: {
        required: true,
        validate: (v) => {
            let url: URL | undefined;
            try {
                url = typeof v === "string" ? new URL(v) : undefined;
            } catch {
                url = undefined;
            }
            if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) {
                return { error: `must be an http or https URL without user:password@ (use callbackUser and callbackPassword), such as "https://hooks.example.com/edis", got ${show(typeof v === "string" ? v.replace(/\/\/[^/@]*@/, "//***@") : v)}` };
            }
            return { value: String(v) };
        },
    },
    callbackMethod: {
        default: "post",
        validate: (v) => (v === "post" || v === "get" ? { value: v } : { error: `must be "post" or "get", got ${show(v)}` }),
    },
    triggerPercent: {
        required: true,
        validate: (v) =>
            typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 100
                ? { value: v }
                : { error: `must be a whole percentage of the traffic allowance from 1 to 100, got ${show(v)}` },
    },
    callbackUser: { validate: (v) => (typeof v === "string" && v.trim() !== "" ? { value: v } : { error: `must be a non-empty string, got ${show(v)}` }) },
    callbackPassword: secretRule(false, (v) => (v === "" ? "must not be empty (leave it unset for none)" : undefined)),
};
const SECRETS = ["callbackPassword"] as const;
/** Every input: EDIS cannot change a hook. */
const REPLACING = ["kvmId", "callbackUrl", "callbackMethod", "triggerPercent", "callbackUser"] as const;

function hookOf(inputs: Record<string, unknown>): TrafficHookRequest {
    return {
        callbackUrl: String(inputs.callbackUrl),
        callbackMethod: inputs.callbackMethod as CallbackMethod,
        triggerPercent: Number(inputs.triggerPercent),
        callbackUser: inputs.callbackUser as string | undefined,
        callbackPassword: inputs.callbackPassword as string | undefined,
    };
}

function outputs(inputs: Record<string, unknown>, hookId: number): Record<string, unknown> {
    const password = inputs.callbackPassword as string | undefined;
    return compact({ ...withoutSecrets(inputs, SECRETS), hookId, callbackPasswordDigest: password ? digestSecret(password) : undefined });
}

export const trafficAlert = {
    ...configuredResource("TrafficAlert", RULES),

    async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
        settleJournal(olds);
        const replaces: string[] = REPLACING.filter((k) => news[k] === UNKNOWN || olds[k] !== news[k]);
        const password = news.callbackPassword;
        const passwordChanged =
            password === UNKNOWN || (password === undefined ? olds.callbackPasswordDigest !== undefined : !matchesDigest(String(password), olds.callbackPasswordDigest));
        if (passwordChanged) replaces.push("callbackPassword");
        return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
    },

    async create(inputs: Record<string, unknown>) {
        const c = ctx();
        const kvmId = String(inputs.kvmId);
        const key = typeof inputs[RESOURCE_KEY] === "string" ? (inputs[RESOURCE_KEY] as string) : undefined;
        const journaled = key ? c.journal.read(key, "hook") : undefined;
        if (journaled?.state === "done" && journaled.hookId !== undefined) {
            c.log(`traffic hook ${journaled.hookId} on ${kvmId} was created by a deployment that did not finish; it is taken, not created again`);
            return { id: String(journaled.hookId), outs: outputs(inputs, journaled.hookId) };
        }
        if (journaled) throw hookMayExist(journaled, c.journal.dir);

        const entry: HookEntry | undefined = key
            ? { kind: "hook", state: "sending", key, hostname: kvmId, kvmId, sentAt: new Date().toISOString(), callbackUrl: String(inputs.callbackUrl), triggerPercent: Number(inputs.triggerPercent) }
            : undefined;
        if (entry) c.journal.write(entry);
        let hookId: number;
        try {
            hookId = await c.management.setTrafficHook(kvmId, hookOf(inputs));
        } catch (e) {
            if (isEdisApiError(e) && e.outcomeUnknown && e.endpoint === "hooks/set") {
                const unknown: HookEntry | undefined = entry && { ...entry, state: "unknown", problem: e.message };
                if (unknown) record(unknown);
                throw unknown ? hookMayExist(unknown, c.journal.dir) : new Error(`hooks/set for ${kvmId} gave no usable answer, so a traffic hook may exist: ${e.message}`);
            }
            // Refused, or never sent (no session): no hook was made.
            if (entry) c.journal.clear(entry.key, "hook");
            throw e;
        }
        if (entry) record({ ...entry, state: "done", hookId });
        return { id: String(hookId), outs: outputs(inputs, hookId) };
    },

    /** Only reached for changes diff does not count (none today): the hook stays as it is. */
    async update(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
        return { outs: compact({ ...olds, ...withoutSecrets(news, SECRETS), __provider: undefined }) };
    },

    async read(id: string, props: Record<string, unknown>) {
        // EDIS has no call to list or read hooks: what was created is what state says.
        settleJournal(props);
        return { id, props };
    },

    async delete(id: string, props: Record<string, unknown>) {
        settleJournal(props);
        try {
            await ctx().management.deleteTrafficHook(String(props.kvmId), Number(props.hookId ?? id));
        } catch (e) {
            // A hook EDIS does not know (deleted elsewhere) or a server it no longer knows: nothing left to delete.
            if (serverGone(e) || (isEdisApiError(e) && e.endpoint === "hooks/del" && e.meaning === "gone")) return;
            throw e;
        }
    },
};

/** After hooks/set answered, nothing may keep the hook id from state: a failed journal write is logged. */
function record(entry: HookEntry): void {
    try {
        ctx().journal.write(entry);
    } catch (e) {
        ctx().log(`warning: the order journal could not record the traffic hook on ${entry.kvmId}: ${(e as Error).message}`);
    }
}

function hookMayExist(entry: HookEntry, dir: string): Error {
    return new Error(
        `a traffic hook on ${entry.kvmId} (${entry.callbackUrl} at ${entry.triggerPercent}%) may or may not have been created: ` +
            `${entry.problem ?? `the deployment that sent it at ${entry.sentAt} stopped before its answer was recorded`}. It is not sent ` +
            `again, because each call adds a hook and EDIS cannot list them, so a second one would call your URL twice. If the ` +
            `hook exists, remove it in the KVM portal; then run \`${resolveCommand("forget", entry.key, dir)}\` and \`pulumi up\` to create it.`,
    );
}
