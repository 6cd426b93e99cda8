/** ReverseDns: read makes no call (EDIS documents no PTR read); a 404 to the undocumented del/ptr leaves it. */
import type * as pulumi from "@pulumi/pulumi";
import { isIP } from "node:net";
import { isEdisApiError } from "../client/errors";
import { FieldRule, compact, show } from "../fields";
import { hostname } from "../kvm/inputs";
import { Core } from "../runtime";
import { KVM_ID_RULE, configuredResource, serverGone } from "./common";

const RULES: Record<string, FieldRule> = {
    kvmId: KVM_ID_RULE,
    ipAddress: {
        required: true,
        validate: (v) =>
            typeof v === "string" && isIP(v.trim()) !== 0
                ? { value: v.trim().toLowerCase() }
                : { error: `must be an IPv4 or IPv6 address of the server, such as "192.0.2.10" or "2001:db8::10", got ${show(v)}` },
    },
    dnsPtr: {
        required: true,
        validate: (v) => {
            const name = typeof v === "string" ? v.trim().replace(/\.$/, "") : v;
            const checked = hostname(name);
            return checked.error ? { error: checked.error.replace(/RFC 1123 host name/, "host name for a PTR record") } : { value: String(name).toLowerCase() };
        },
    },
};

function idOf(props: Record<string, unknown>): string {
    return `${String(props.kvmId)}/${String(props.ipAddress)}`;
}

export function reverseDnsOn(core: Core) {
    const { ctx } = core;
    return {
        ...configuredResource(core, "ReverseDns", RULES),

        async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
            const changed = ["kvmId", "ipAddress", "dnsPtr"].filter((k) => olds[k] !== news[k]);
            const replaces = changed.filter((k) => k !== "dnsPtr");
            // The same address moving to another KVM: delete first, or the old record's delete would remove the new one.
            const deleteBeforeReplace = replaces.length > 0 && olds.ipAddress === news.ipAddress;
            return { changes: changed.length > 0, replaces, changed, deleteBeforeReplace };
        },

        async create(inputs: Record<string, unknown>) {
            await ctx().management.setPtr(String(inputs.kvmId), { [String(inputs.ipAddress)]: String(inputs.dnsPtr) });
            return { id: idOf(inputs), outs: compact({ ...inputs, __provider: undefined }) };
        },

        async update(_id: string, _olds: Record<string, unknown>, news: Record<string, unknown>) {
            await ctx().management.setPtr(String(news.kvmId), { [String(news.ipAddress)]: String(news.dnsPtr) });
            return { outs: compact({ ...news, __provider: undefined }) };
        },

        async read(id: string, props: Record<string, unknown>) {
            return { id, props };
        },

        async delete(_id: string, props: Record<string, unknown>) {
            const c = ctx();
            try {
                await c.management.deletePtr(String(props.kvmId), [String(props.ipAddress)]);
            } catch (e) {
                if (serverGone(e)) return;
                if (isEdisApiError(e) && e.endpoint === "del/ptr" && e.status === 404) {
                    c.log(`note: the reverse-DNS host has no del/ptr (${e.message}); the PTR record of ${String(props.ipAddress)} is left as it is`);
                    return;
                }
                throw e;
            }
        },
    } satisfies pulumi.dynamic.ResourceProvider;
}
