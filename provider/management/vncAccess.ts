/** VncAccess: the VNC console of one server. The password is never an output: state keeps its digest. */
import type * as pulumi from "@pulumi/pulumi";
import { VncStatus } from "../client/model";
import { FieldRule, UNKNOWN, compact } from "../fields";
import { Core } from "../runtime";
import { KVM_ID_RULE, configuredResource, noAnswerNow, secretRule, serverGone, withoutSecrets } from "./common";
import { digestSecret, matchesDigest } from "./secretDigest";

const RULES: Record<string, FieldRule> = {
    kvmId: KVM_ID_RULE,
    password: secretRule(true, (v) =>
        /^[A-Za-z0-9]{8}$/.test(v) ? undefined : `must be exactly 8 letters or digits (A-Z, a-z, 0-9), as EDIS requires; the value given has ${v.length} characters${/[^A-Za-z0-9]/.test(v) ? " and others than letters and digits" : ""}`,
    ),
};
const SECRETS = ["password"] as const;

/** What state keeps of a status, named: a field the status gains later does not reach state unseen. */
function shown({ enabled, host, port, novncPort }: VncStatus) {
    return { enabled, host, port, novncPort };
}

function outputs(inputs: Record<string, unknown>, status: VncStatus): Record<string, unknown> {
    return compact({ ...withoutSecrets(inputs, SECRETS), ...shown(status), passwordDigest: digestSecret(String(inputs.password)) });
}

export function vncAccessOn(core: Core) {
    const { ctx } = core;
    return {
        ...configuredResource(core, "VncAccess", RULES),

        async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
            const replaces = olds.kvmId !== news.kvmId ? ["kvmId"] : [];
            const password = news.password === UNKNOWN || !matchesDigest(String(news.password), olds.passwordDigest);
            const changed = password ? [...replaces, "password"] : replaces;
            // VNC switched off at EDIS is no input's change: an update, never a replacement (whose old half would switch it off).
            return { changes: changed.length > 0 || olds.enabled === false, replaces, changed, deleteBeforeReplace: false };
        },

        async create(inputs: Record<string, unknown>) {
            const kvmId = String(inputs.kvmId);
            const status = await ctx().management.enableVnc(kvmId, String(inputs.password));
            return { id: kvmId, outs: outputs(inputs, status) };
        },

        async update(_id: string, _olds: Record<string, unknown>, news: Record<string, unknown>) {
            return { outs: outputs(news, await ctx().management.enableVnc(String(news.kvmId), String(news.password))) };
        },

        async read(id: string, props: Record<string, unknown>) {
            const kvmId = String(props.kvmId ?? id);
            try {
                return { id, props: compact({ ...props, kvmId, ...shown(await ctx().management.getVnc(kvmId)) }) };
            } catch (e) {
                if (serverGone(e)) return { id: "", props: {} };
                // A refresh that throws stops the whole command, so no answer now keeps state; a meaningful answer throws.
                if (!noAnswerNow(e)) throw e;
                ctx().log(`warning: the VNC access of ${kvmId} could not be read, so it was not checked: ${(e as Error).message}`);
                return { id, props };
            }
        },

        async delete(_id: string, props: Record<string, unknown>) {
            try {
                await ctx().management.disableVnc(String(props.kvmId));
            } catch (e) {
                if (!serverGone(e)) throw e;
            }
        },
    } satisfies pulumi.dynamic.ResourceProvider;
}
