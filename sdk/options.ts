import * as pulumi from "@pulumi/pulumi";
import { CONFIG_NAMESPACE, SETTINGS, unknownSettings } from "../provider/config";

/** The account's credentials as namespaced config keys (`edis:email`), with their environment fallbacks. */
export const CREDENTIAL_SETTINGS = (["email", "password"] as const).map((name) => ({ key: `${CONFIG_NAMESPACE}:${SETTINGS[name].key}`, env: SETTINGS[name].env }));

/**
 * Refuses to register a pulumi-edis resource while a credential is plain-text stack config. The engine records
 * the whole stack config as the inputs of the provider that serves dynamic resources
 * (`pulumi:providers:pulumi-nodejs::default` in every checkpoint, `pulumi stack export` and the backups), in
 * plain text unless the key is a secret; it also configures refresh and destroy from that record. So a plain
 * `edis:email` or `edis:password` would be stored readable in the state, and the program stops here, before
 * anything is ordered, in preview too.
 */
export function requireSecretCredentials(resource: string): void {
    // Only where there is a state to protect: unit tests under setMocks have none (and Pulumi's documented
    // `pulumi.runtime.setConfig` in a test marks every key plain).
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

/**
 * Refuses a stack config key of the `edis` namespace that is no setting (a typo would leave its guard off): the plugin
 * refuses it in CheckConfig, and the dynamic provider's host has no such step, so the program does, in preview too.
 */
export function refuseUnknownSettings(): void {
    const prefix = `${CONFIG_NAMESPACE}:`;
    const keys = Object.keys(pulumi.runtime.allConfig()).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
    const unknown = unknownSettings(keys);
    if (unknown.length) throw new pulumi.RunError(unknown.map((f) => f.reason).join("\n"));
}

/** The options of every pulumi-edis resource registration, with `secret` outputs encrypted in state; checks the credentials and settings first. */
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

/**
 * The order journal's identity of a resource (provider/journal.ts): its URN, computed as the engine does (project,
 * stack, the types of its parents, its type and name), and the URNs of its aliases. A dynamic provider never sees
 * the URN, so the SDK passes both as inputs, which diff ignores. The resource's own aliases, and those it inherits
 * from a parent component renamed with aliases (as the engine derives them: @pulumi/pulumi's allAliases).
 */
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

/**
 * Once the engine has saved a resource (its registration answered, outside preview, with checkpoints saved), the
 * journal entry of the write that made it goes (provider/journal settle, as the provider's next diff or read would).
 * Never fails the program.
 */
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
            // The program stays alive until the entry is settled (a journal in S3 is a request away), 10 s at most;
            // the provider settles it at the next diff or read if this fails.
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
