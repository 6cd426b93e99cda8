/** The resource types the plugin serves: the dynamic provider's implementations, plus what the plugin's door adds. */
import { kvmServerOn } from "../kvm/provider";
import { vncAccessOn } from "../management/vncAccess";
import { reverseDnsOn } from "../management/reverseDns";
import { trafficAlertOn } from "../management/trafficAlert";
import type { Core } from "../runtime";
import { RESOURCE_KEY } from "../journal";
import { hostname as hostnameRule } from "../kvm/inputs";
import type { Props } from "./properties";
import { schemaText } from "./schema";

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
    inputNames: readonly string[];
    inputsForState(props: Props): Props;
    /** The URN stays: a renamed resource finds its journal entries by it. */
    outputsForState(props: Props): Props;
    importedInputs(outs: Props): Props;
    secretOutputs: readonly string[];
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

/** EDIS tells an imported server's KVM and host name, not its plan or OS: so it is declared as adopted (`adoptKvmId`). */
function importedServer(outs: Props): Props {
    const inputs: Props = { adoptKvmId: outs.kvmId };
    const name = typeof outs.description === "string" ? hostnameRule(outs.description.trim()) : undefined;
    if (name && "value" in name) inputs.hostname = name.value;
    return inputs;
}

/** The resource types on one core: the same implementations the dynamic provider serves. */
export function resourcesOn(core: Core): Record<string, ResourceDoor> {
    return {
        "edis:index:KvmServer": door("edis:index:KvmServer", kvmServerOn(core) as unknown as ResourceImpl, importedServer),
        "edis:index:VncAccess": door("edis:index:VncAccess", vncAccessOn(core) as unknown as ResourceImpl, notImportable("VncAccess"), { secretOutputs: ["passwordDigest"] }),
        "edis:index:ReverseDns": door("edis:index:ReverseDns", reverseDnsOn(core) as unknown as ResourceImpl, notImportable("ReverseDns")),
        "edis:index:TrafficAlert": door("edis:index:TrafficAlert", trafficAlertOn(core) as unknown as ResourceImpl, notImportable("TrafficAlert"), { secretOutputs: ["callbackPasswordDigest"] }),
    };
}
