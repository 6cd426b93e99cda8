/** TrafficAlert: hooks/set is journalled, sent once (hooks cannot be listed); every input replaces. */
import type * as pulumi from "@pulumi/pulumi";
import { refusedInEdisForm } from "../client/answers";
import { isEdisApiError } from "../client/errors";
import { MANAGEMENT_ENDPOINTS } from "../client/management";
import { CallbackMethod, TrafficHookRequest } from "../client/model";
import { FieldRule, UNKNOWN, compact, show } from "../fields";
import { maskUserInfo } from "../config";
import { HookEntry, JournalPlace, entryFor, identityOf, resolveCommand } from "../journal";
import { WriteOutcomeUnknownError, sendOnce } from "../paidWrite";
import { Core } from "../runtime";
import { KVM_ID_RULE, configuredResource, secretRule, serverGone, withoutSecrets } from "./common";
import { digestSecret, matchesDigest } from "./secretDigest";

const RULES: Record<string, FieldRule> = {
    kvmId: KVM_ID_RULE,
    callbackUrl: {
        required: true,
        validate: (v) => {
            const url = typeof v === "string" && URL.canParse(v) ? new URL(v) : undefined;
            if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password) {
                return { error: `must be an http or https URL without user:password@ (use callbackUser and callbackPassword), such as "https://hooks.example.com/edis", got ${show(typeof v === "string" ? maskUserInfo(v) : v)}` };
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

export function trafficAlertOn(core: Core) {
    const { ctx, settleJournal } = core;
    return {
        ...configuredResource(core, "TrafficAlert", RULES),

        async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
            await settleJournal(olds);
            const replaces: string[] = REPLACING.filter((k) => news[k] === UNKNOWN || olds[k] !== news[k]);
            const password = news.callbackPassword;
            const passwordChanged =
                password === UNKNOWN || (password === undefined ? olds.callbackPasswordDigest !== undefined : !matchesDigest(String(password), olds.callbackPasswordDigest));
            if (passwordChanged) replaces.push("callbackPassword");
            return { changes: replaces.length > 0, replaces, changed: replaces, deleteBeforeReplace: false };
        },

        async create(inputs: Record<string, unknown>) {
            const c = ctx();
            const kvmId = String(inputs.kvmId);
            const id = identityOf(inputs);
            const digest = digestSecret(JSON.stringify(hookOf(inputs)));
            const journaled = id ? await entryFor(c.journal, { ...id, provider: c.provider }, "hook", c.log, (e) => e.kvmId === kvmId && e.callbackUrl === inputs.callbackUrl) : undefined;
            // A hook of a deployment that did not finish is this resource's only if made with these inputs.
            if (journaled?.state === "done" && journaled.hookId !== undefined && madeWith(journaled, inputs)) {
                c.log(`traffic hook ${journaled.hookId} on ${kvmId} was created by a deployment that did not finish; it is taken, not created again`);
                return { id: String(journaled.hookId), outs: outputs(inputs, journaled.hookId) };
            }
            if (journaled) throw hookMayExist(journaled, c.journal);

            const entry: HookEntry | undefined = id
                ? {
                      kind: "hook",
                      state: "sending",
                      key: id.key,
                      hostname: kvmId,
                      kvmId,
                      sentAt: new Date().toISOString(),
                      callbackUrl: String(inputs.callbackUrl),
                      triggerPercent: Number(inputs.triggerPercent),
                      inputsDigest: digest,
                      provider: c.provider,
                  }
                : undefined;
            const outcome = await sendOnce<HookEntry, number>({
                journal: c.journal,
                entry,
                endpoint: MANAGEMENT_ENDPOINTS.hookSet.path,
                log: c.log,
                cancelled: c.cancelled,
                send: () => c.management.setTrafficHook(kvmId, hookOf(inputs)),
                made: (sending, hookId) => ({ ...sending, state: "done", hookId }),
                madeDespite: () => undefined,
                unknown: (problem, unknown) =>
                    unknown
                        ? hookUnknown(unknown, c.journal)
                        : new WriteOutcomeUnknownError(`a traffic hook on ${kvmId}`, problem, "If it exists, remove it in the KVM portal before running `pulumi up` again."),
            });
            if (!("answered" in outcome)) throw outcome.named;
            return { id: String(outcome.answered), outs: outputs(inputs, outcome.answered) };
        },

        async update(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
            return { outs: compact({ ...olds, ...withoutSecrets(news, SECRETS), __provider: undefined }) };
        },

        async read(id: string, props: Record<string, unknown>) {
            await settleJournal(props);
            return { id, props };
        },

        async delete(id: string, props: Record<string, unknown>) {
            await settleJournal(props);
            try {
                await ctx().management.deleteTrafficHook(String(props.kvmId), Number(props.hookId ?? id));
            } catch (e) {
                // Any other refusal keeps it, whatever the words: it would still call the URL.
                if (serverGone(e)) return;
                if (isEdisApiError(e) && e.endpoint === MANAGEMENT_ENDPOINTS.hookDelete.path && refusedInEdisForm(e)) {
                    ctx().log(`traffic hook ${String(props.hookId ?? id)} on ${String(props.kvmId)} was not deleted (${e.message}); removed from the stack's state. If it still exists, remove it in the KVM portal.`);
                    return;
                }
                throw e;
            }
        },
    } satisfies pulumi.dynamic.ResourceProvider;
}

/** Whether a hook was made with these inputs (as its digest shows; an entry without one, by its URL alone). */
function madeWith(entry: HookEntry, inputs: Record<string, unknown>): boolean {
    return !entry.inputsDigest || matchesDigest(JSON.stringify(hookOf(inputs)), entry.inputsDigest);
}

function hookUnknown(entry: HookEntry, dir: JournalPlace): WriteOutcomeUnknownError {
    return new WriteOutcomeUnknownError(
        `a traffic hook on ${entry.kvmId} (${entry.callbackUrl} at ${entry.triggerPercent}%)`,
        entry.problem ?? `the deployment that sent it at ${entry.sentAt} stopped before its answer was recorded`,
        `Each call adds a hook and EDIS cannot list them, so a second one would call your URL twice. If the hook exists, remove it ` +
            `in the KVM portal; then run \`${resolveCommand("forget", entry.key, dir, "hook")}\` and \`pulumi up\` to create it.`,
    );
}

function hookMayExist(entry: HookEntry, dir: JournalPlace): Error {
    if (entry.state !== "done") return hookUnknown(entry, dir);
    return new Error(
        `traffic hook ${entry.hookId ?? "?"} on ${entry.kvmId} was created at ${entry.sentAt} by a deployment that did not finish, with other ` +
            `inputs than this resource now has, so it is not taken as this one. Remove it in the KVM portal if it should go; then run ` +
            `\`${resolveCommand("forget", entry.key, dir, "hook")}\` and \`pulumi up\` to create this one.`,
    );
}
