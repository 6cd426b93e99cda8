/** The resource types the plugin serves: the dynamic provider's implementations, plus what the plugin's door adds. */
import { kvmServerOn } from "../kvm/provider";
import { vncAccessOn } from "../management/vncAccess";
import { reverseDnsOn } from "../management/reverseDns";
import { trafficAlertOn } from "../management/trafficAlert";
import type { Core } from "../runtime";
import { RESOURCE_KEY } from "../journal";
import { hostname as hostnameRule } from "../kvm/inputs";
import type { Props } from "./properties";
import type * as pulumi from "@pulumi/pulumi";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../version";

export type ResourceImpl = Required<Pick<pulumi.dynamic.ResourceProvider, "check" | "diff" | "create" | "read" | "update" | "delete">>;

export const schemaText = (): string => readFileSync(join(PACKAGE_ROOT, "schema.json"), "utf8");

export interface ResourceDoor {
    impl: ResourceImpl;
    inputNames: readonly string[];
    importedInputs(outs: Props): Props;
    secretOutputs: readonly string[];
}

function without(props: Props, names: readonly string[]): Props {
    return Object.fromEntries(Object.entries(props).filter(([k]) => !names.includes(k)));
}

export const inputsForState = (props: Props) => without(props, [RESOURCE_KEY, "__provider"]);
/** The URN stays: a renamed resource finds its journal entries by it. */
export const outputsForState = (props: Props) => without(props, ["__provider"]);

function inputNamesOf(token: string): string[] {
    const { resources } = JSON.parse(schemaText()) as { resources: Record<string, { inputProperties?: object }> };
    return Object.keys(resources[token]?.inputProperties ?? {});
}

function door(type: string, impl: unknown, importedInputs = notImportable(type), secretOutputs: string[] = []) {
    const token = `edis:index:${type}`;
    return [token, { impl: impl as ResourceImpl, inputNames: inputNamesOf(token), importedInputs, secretOutputs }] as const;
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

export function resourcesOn(core: Core): Record<string, ResourceDoor> {
    return Object.fromEntries([
        door("KvmServer", kvmServerOn(core), importedServer),
        door("VncAccess", vncAccessOn(core), undefined, ["passwordDigest"]),
        door("ReverseDns", reverseDnsOn(core)),
        door("TrafficAlert", trafficAlertOn(core), undefined, ["callbackPasswordDigest"]),
    ]);
}
