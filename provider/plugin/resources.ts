/**
 * The resource types the plugin serves, each an implementation the dynamic provider runs too, with what the
 * plugin's door adds: which properties are inputs (from the schema, the declared contract), what state keeps,
 * and what `pulumi import` learns from EDIS.
 */
import { kvmServer } from "../kvm/provider";
import { vncAccess } from "../management/vncAccess";
import { reverseDns } from "../management/reverseDns";
import { trafficAlert } from "../management/trafficAlert";
import { JournalEntry, RESOURCE_KEY, unfinishedBeside } from "../journal";
import { hostname as hostnameRule, sameHostname } from "../kvm/inputs";
import { ctx } from "../runtime";
import type { Props } from "./properties";
import { schemaText } from "./schema";

/** One resource implementation, as both doors call it (the dynamic provider's contract). */
export interface ResourceImpl {
    configure(req: { config: { get(key: string): string | undefined } }): Promise<void>;
    check(olds: Props, news: Props): Promise<{ inputs?: Props; failures?: Array<{ property: string; reason: string }> }>;
    diff(id: string, olds: Props, news: Props): Promise<{ changes?: boolean; replaces?: string[]; deleteBeforeReplace?: boolean; changed?: string[] }>;
    create(inputs: Props): Promise<{ id: string; outs: Props }>;
    read(id: string, props: Props): Promise<{ id?: string; props?: Props }>;
    update(id: string, olds: Props, news: Props): Promise<{ outs: Props }>;
    delete(id: string, props: Props): Promise<void>;
}

export interface ResourceDoor {
    impl: ResourceImpl;
    /** The input properties the schema declares. */
    inputNames: readonly string[];
    /** Inputs as state keeps them: without what only the provider passes itself (the URN). */
    inputsForState(props: Props): Props;
    /** Outputs as state keeps them (the URN stays: a renamed resource finds its journal entries by it). */
    outputsForState(props: Props): Props;
    /** The inputs of a resource brought in by `pulumi import`, from what a Read learned at EDIS. */
    importedInputs(outs: Props): Props;
    /** Outputs that are secrets although no input of the same name was (digests of passwords). */
    secretOutputs: readonly string[];
    /** The paid write a create makes (an order, a hook), and whether another resource's journal entry has these inputs' intent (paidWriteOfRenamed). */
    paidWrite?: { kind: "order" | "hook"; sameIntent(entry: JournalEntry, inputs: Props): boolean; describe(entry: JournalEntry): string };
}

const PASSED_BY_PROVIDER = [RESOURCE_KEY, "__provider"];

function without(props: Props, names: readonly string[]): Props {
    return Object.fromEntries(Object.entries(props).filter(([k]) => !names.includes(k)));
}

function inputNamesOf(token: string): string[] {
    const schema = JSON.parse(schemaText()) as { resources: Record<string, { inputProperties?: Record<string, unknown> }> };
    return Object.keys(schema.resources[token]?.inputProperties ?? {});
}

function door(token: string, impl: ResourceImpl, importedInputs: (outs: Props) => Props, more: Partial<ResourceDoor> = {}): ResourceDoor {
    return {
        impl,
        inputNames: inputNamesOf(token),
        inputsForState: (props) => without(props, PASSED_BY_PROVIDER),
        outputsForState: (props) => without(props, ["__provider"]),
        importedInputs,
        secretOutputs: [],
        ...more,
    };
}

function notImportable(type: string): (outs: Props) => Props {
    return () => {
        throw new Error(`${type} cannot be imported: declare it in the program; creating it again is free and sets the same state at EDIS`);
    };
}

/**
 * A server brought in by `pulumi import edis:index:KvmServer <name> <serviceId>`: EDIS tells its KVM and its
 * description (the host name it was ordered with), not its plan or operating system. It is declared as adopted
 * (`adoptKvmId`), which makes planId and osId optional and lets their first values be recorded without an order.
 */
function importedServer(outs: Props): Props {
    const inputs: Props = { adoptKvmId: outs.kvmId };
    const name = typeof outs.description === "string" ? hostnameRule(outs.description.trim()) : undefined;
    if (name && "value" in name) inputs.hostname = name.value;
    return inputs;
}

/**
 * Before any paid write a create makes through the plugin: an unfinished write of the same intent by another
 * resource of this stack and type may be this resource's before a rename with an alias (the engine tells a plugin
 * only the new URN; the dynamic door learns the aliases from the SDK, journal.entryFor). Refused before anything
 * is sent, so that it cannot be paid twice.
 */
export async function paidWriteOfRenamed(door: ResourceDoor, inputs: Props, urn: string): Promise<void> {
    const write = door.paidWrite;
    if (!write || typeof inputs.adoptKvmId === "string") return;
    const c = ctx();
    const other = (await unfinishedBeside(c.journal, urn, write.kind)).find((e) => write.sameIntent(e, inputs));
    if (other) {
        throw new Error(
            `the order journal holds an unfinished ${other.kind} for ${other.key} (${write.describe(other)}), sent ${other.sentAt}: the same ` +
                `${other.kind === "order" ? "host name" : "alert"} in this stack, perhaps this resource before a rename. Nothing was sent, so that ` +
                `it cannot be paid twice. If this resource was renamed, run \`pulumi up\` once under the old name (it records what was sent ` +
                `without sending it again), then rename it with the alias. If it is another resource, run \`pulumi up\` with that one first.`,
        );
    }
}

export const RESOURCES: Record<string, ResourceDoor> = {
    "edis:index:KvmServer": door("edis:index:KvmServer", kvmServer as unknown as ResourceImpl, importedServer, {
        paidWrite: {
            kind: "order",
            sameIntent: (e, inputs) => e.kind === "order" && typeof inputs.hostname === "string" && sameHostname(e.hostname, inputs.hostname),
            describe: (e) => `${e.hostname}${e.kind === "order" && e.serviceId !== undefined ? `, service ${e.serviceId}` : ""}`,
        },
    }),
    "edis:index:VncAccess": door("edis:index:VncAccess", vncAccess as unknown as ResourceImpl, notImportable("VncAccess"), { secretOutputs: ["passwordDigest"] }),
    "edis:index:ReverseDns": door("edis:index:ReverseDns", reverseDns as unknown as ResourceImpl, notImportable("ReverseDns")),
    "edis:index:TrafficAlert": door("edis:index:TrafficAlert", trafficAlert as unknown as ResourceImpl, notImportable("TrafficAlert"), {
        secretOutputs: ["callbackPasswordDigest"],
        paidWrite: {
            kind: "hook",
            sameIntent: (e, inputs) => e.kind === "hook" && e.kvmId === inputs.kvmId && e.callbackUrl === inputs.callbackUrl,
            describe: (e) => (e.kind === "hook" ? `${e.kvmId}, ${e.callbackUrl}` : e.key),
        },
    }),
};
