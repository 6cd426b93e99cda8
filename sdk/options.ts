import * as pulumi from "@pulumi/pulumi";
import { CONFIG_NAMESPACE, SETTINGS, unknownSettings } from "../provider/config";

/** The account's credentials as namespaced config keys (`edis:email`), with their environment fallbacks. */
export const CREDENTIAL_SETTINGS = (["email", "password"] as const).map((name) => ({ key: `${CONFIG_NAMESPACE}:${SETTINGS[name].key}`, env: SETTINGS[name].env }));

/**
 * Refuses to register a resource while a credential is plain-text stack config: the engine records the whole stack
 * config, in plain text unless secret, as the inputs of the dynamic resources' provider
 * (`pulumi:providers:pulumi-nodejs::default`) in every checkpoint, export and backup. Stops before anything is ordered.
 */
export function requireSecretCredentials(resource: string): void {
    // Unit tests under setMocks have no state to protect (and `pulumi.runtime.setConfig` there marks every key plain).
    if (underMocks()) return;
    for (const { key, env: variable } of CREDENTIAL_SETTINGS) {
        if (pulumi.runtime.getConfig(key) === undefined || isSecretConfig(key)) continue;
        // A RunError: the program host prints its message alone, with no stack trace.
        throw new pulumi.RunError(
            `config ${key} is set in plain text, so the engine would store it unencrypted in the stack's state (it records ` +
                `the stack config with the provider of every ${resource}). Set it as a secret: \`pulumi config set --secret ${key} <value>\` ` +
                `(the value stays the same), or remove it (\`pulumi config rm ${key}\`) and set ${variable} in the environment instead. ` +
                `If an earlier \`pulumi up\` ran with it in plain text, the stack's history and backups hold it: change it at EDIS.`,
        );
    }
}

/** Whether a config key is a secret (`isConfigSecret`: internal, but in every @pulumi/pulumi the peer range allows). */
function isSecretConfig(key: string): boolean {
    const runtime = pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean };
    // Without it, a credential counts as plain text: the program stops rather than store it readable.
    return runtime.isConfigSecret?.(key) ?? false;
}

/** Refuses `edis` keys that are no setting (a typo would leave its guard off): the dynamic host has no CheckConfig. */
export function refuseUnknownSettings(): void {
    const prefix = `${CONFIG_NAMESPACE}:`;
    const keys = Object.keys(pulumi.runtime.allConfig()).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
    const unknown = unknownSettings(keys);
    if (unknown.length) throw new pulumi.RunError(unknown.map((f) => f.reason).join("\n"));
}

export function registration(resource: string, opts: pulumi.CustomResourceOptions | undefined, secret: string[] = []): pulumi.CustomResourceOptions {
    requireSecretCredentials(resource);
    refuseUnknownSettings();
    return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...secret] };
}

/** True when the program runs under `pulumi.runtime.setMocks` (a unit test), not against an engine (one @pulumi/pulumi: oneSdk.ts). */
function underMocks(): boolean {
    const monitor = pulumi.runtime.getMonitor() as object | undefined;
    return monitor?.constructor?.name === "MockMonitor";
}

/** A resource's URN and its aliases' (allAliases), as inputs diff ignores: a dynamic provider never sees the URN. */
export function journalIdentity(name: string, type: string, opts: pulumi.CustomResourceOptions | undefined): Record<string, pulumi.Output<unknown>> {
    const aliases = (opts?.aliases ?? []).map((alias) =>
        pulumi.output(alias).apply((a): pulumi.Output<string> => {
            if (typeof a === "string") return pulumi.output(a);
            const spec = a as pulumi.Alias & { noParent?: boolean };
            const parent = spec.noParent ? undefined : "parent" in spec ? spec.parent : "parentUrn" in spec ? spec.parentUrn : opts?.parent;
            return pulumi
                .all([spec.name ?? name, spec.type ?? type, spec.project, spec.stack])
                .apply(([n, t, project, stack]) => pulumi.createUrn(n, t, parent as pulumi.Resource | pulumi.Input<string> | undefined, project, stack));
        }),
    );
    const parent = opts?.parent as (pulumi.Resource & { __aliases?: unknown[]; __name?: string }) | undefined;
    if (parent?.__aliases?.length) {
        const resourceModule = require("@pulumi/pulumi/resource") as { allAliases?: (...args: unknown[]) => pulumi.Output<string>[] };
        aliases.push(...(resourceModule.allAliases?.([], name, type, parent, parent.__name ?? "") ?? []));
    }
    return {
        __resourceKey: pulumi.createUrn(name, type, opts?.parent),
        __resourceAliases: pulumi.all(aliases),
    };
}

/** Settles the journal entry once the engine saved the resource (not in preview), as a next diff would; never fails. */
export function settleWhenRecorded(key: pulumi.Input<unknown> | undefined, kind: "order" | "hook", id: pulumi.Output<number | undefined>): void {
    if (key === undefined || pulumi.runtime.isDryRun()) return;
    pulumi.all([key, id]).apply(([k, made]) => {
        if (typeof k !== "string" || typeof made !== "number") return;
        try {
            const { OrderJournal, RESOURCE_KEY, checkpointsSaved, settle, journalStoreAt } = require("../provider/journal") as typeof import("../provider/journal");
            if (!checkpointsSaved()) return;
            const { resolveConfig } = require("../provider/config") as typeof import("../provider/config");
            // The provider's own reading of the settings (provider/config.ts), so both find the same journal.
            const location = resolveConfig((key) => pulumi.runtime.getConfig(`edis:${key}`)).journal;
            if (location.kind === "unusable") return;
            // Keeps the program alive until settled, 10 s at most; else the provider's next diff or read settles it.
            const done = pulumi.runtime.rpcKeepAlive();
            const limit = setTimeout(done, 10_000);
            settle(new OrderJournal(journalStoreAt(location)), { [RESOURCE_KEY]: k, [kind === "order" ? "serviceId" : "hookId"]: made })
                .catch(() => undefined)
                .finally(() => {
                    clearTimeout(limit);
                    done();
                });
        } catch {
            // The provider settles it at the next diff or read.
        }
    });
}
