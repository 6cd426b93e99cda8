/** Builds schema.json from the SDK's declarations and doc comments: one description per property (`npm run schema`). */
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { BILLING_CYCLES, CANCELLATION_TYPES, POWER_STATES } from "../provider/client/model";
import { SETTINGS } from "../provider/config";
import { OPTIONAL_WHEN_ADOPTED } from "../provider/kvm/inputs";
import * as catalogueLookups from "../provider/lookups/catalogue";
import { FUNCTION_TOKENS } from "../provider/plugin/functions";
import { PACKAGE_ROOT as ROOT, packageVersion } from "../provider/version";

const PKG = "edis";

type Spec = Record<string, unknown>;

/** Schema enums (every SDK names their values); a property whose declared type names one is typed by it. */
const ENUMS: Record<string, { description: string; values: readonly string[] }> = {
    BillingCycle: { description: "How often EDIS invoices a server.", values: BILLING_CYCLES },
    CancellationType: { description: "What deleting a server asks EDIS for.", values: CANCELLATION_TYPES },
    PowerState: { description: "A server's power state.", values: POWER_STATES },
};

/** Numbers that are whole (ids, MB, GB, cores, ports, percentages, seconds of a time limit, Unix times): integers in every SDK. */
const WHOLE = /^id$|Id$|Mb$|Gb$|^cpu$|Cpu$|[pP]ort$|Percent$|TimeoutSeconds$|^validUntil$/;

const RESOURCES = [
    { name: "KvmServer", file: "sdk/kvmServer.ts", args: "KvmServerArgs" },
    { name: "VncAccess", file: "sdk/vncAccess.ts", args: "VncAccessArgs" },
    { name: "ReverseDns", file: "sdk/reverseDns.ts", args: "ReverseDnsArgs" },
    { name: "TrafficAlert", file: "sdk/trafficAlert.ts", args: "TrafficAlertArgs" },
] as const;

const FUNCTIONS = FUNCTION_TOKENS.map((token) => token.replace("edis:index:", "")).map((name) => ({
    name,
    file: name in catalogueLookups ? "sdk/lookups/catalogue.ts" : "sdk/lookups/account.ts",
}));

export function buildSchema(): Spec {
    const files = [...RESOURCES.map((r) => r.file), ...FUNCTIONS.map((f) => f.file)].map((f) => path.join(ROOT, f));
    const program = ts.createProgram([...new Set(files)], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: true, esModuleInterop: true, skipLibCheck: true });
    const checker = program.getTypeChecker();
    const types: Record<string, Spec> = {};

    const docOf = (sym: ts.Symbol | undefined): string => (sym ? ts.displayPartsToString(sym.getDocumentationComment(checker)).trim() : "");

    /** The value type inside pulumi.Input<T> / pulumi.Output<T> / Promise<T>, without undefined. */
    const unwrap = (t: ts.Type): ts.Type => {
        let type = checker.getNonNullableType(t);
        // pulumi.Output<T> is OutputInstance<T> & Lifted<T>: T is OutputInstance's argument.
        if (type.isIntersection()) {
            const instance = type.types.find((m) => m.getSymbol()?.getName() === "OutputInstance");
            if (instance) return unwrap(checker.getTypeArguments(instance as ts.TypeReference)[0]);
        }
        if (type.isUnion()) {
            // pulumi.Input<T> = T | Promise<T> | OutputInstance<T>: the plain member is the first that is no wrapper.
            const plain = type.types.filter((m) => !/^(Promise|OutputInstance|Output)\b/.test(checker.typeToString(m)));
            if (plain.length === 1 && type.types.length > 1) type = plain[0];
        }
        const name = type.getSymbol()?.getName() ?? type.aliasSymbol?.getName();
        if ((name === "Output" || name === "OutputInstance" || name === "Promise") && (type as ts.TypeReference).typeArguments?.length) {
            return unwrap((type as ts.TypeReference).typeArguments![0]);
        }
        return type;
    };

    const specOf = (t: ts.Type): Spec => {
        const type = unwrap(t);
        if (type.flags & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral)) return { type: "number" };
        if (type.flags & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { type: "boolean" };
        if (type.flags & (ts.TypeFlags.String | ts.TypeFlags.StringLiteral)) return { type: "string" };
        if (type.isUnion()) {
            const members = type.types.filter((m) => !(m.flags & ts.TypeFlags.Undefined));
            if (members.every((m) => m.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.String))) return { type: "string" };
            if (members.every((m) => m.flags & (ts.TypeFlags.BooleanLiteral | ts.TypeFlags.Boolean))) return { type: "boolean" };
            return specOf(members[0]);
        }
        if (checker.isArrayType(type)) return { type: "array", items: specOf(checker.getTypeArguments(type as ts.TypeReference)[0]) };
        const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
        const props = checker.getPropertiesOfType(type);
        if (index && props.length === 0) return { type: "object", additionalProperties: specOf(index.type) };
        const name = type.aliasSymbol?.getName() ?? type.getSymbol()?.getName();
        // Prices (a Partial<Record<cycle, string>>) and other anonymous maps: a map of their value type.
        if (!name || name === "__type" || name === "__object" || name === "Partial" || name === "Record") {
            const values = props.map((p) => checker.getTypeOfSymbol(p));
            return { type: "object", additionalProperties: values.length ? specOf(values[0]) : { type: "string" } };
        }
        const token = `${PKG}:index:${name}`;
        if (!types[token]) {
            types[token] = {};
            types[token] = { type: "object", ...objectOf(props) };
        }
        return { $ref: `#/types/${token}` };
    };

    const enumRef = (name: string): Spec => {
        const { description, values } = ENUMS[name];
        types[`${PKG}:index:${name}`] = { type: "string", description, enum: values.map((value) => ({ name: pascal(value), value })) };
        return { $ref: `#/types/${PKG}:index:${name}` };
    };

    /** The enum a property's declared type names (`pulumi.Input<BillingCycle>`, `CancellationType | undefined`, `BillingCycle[]`). */
    const enumOf = (p: ts.Symbol): Spec | undefined => {
        const declared = (p.getDeclarations() ?? []).map((d) => (ts.isPropertySignature(d) || ts.isPropertyDeclaration(d) ? (d.type?.getText() ?? "") : "")).join(" ");
        const name = Object.keys(ENUMS).find((n) => new RegExp(`\\b${n}\\b`).test(declared));
        if (!name) return undefined;
        return new RegExp(`\\b${name}\\s*\\[\\]|Array<${name}>`).test(declared) ? { type: "array", items: enumRef(name) } : enumRef(name);
    };

    function objectOf(props: ts.Symbol[]): { properties: Record<string, Spec>; required?: string[] } {
        const properties: Record<string, Spec> = {};
        const required: string[] = [];
        for (const p of props) {
            const spec: Spec = enumOf(p) ?? { ...specOf(checker.getTypeOfSymbol(p)) };
            if (spec.type === "number" && WHOLE.test(p.getName())) spec.type = "integer";
            const doc = docOf(p);
            if (doc) spec.description = doc;
            properties[p.getName()] = spec;
            if (!(p.flags & ts.SymbolFlags.Optional)) required.push(p.getName());
        }
        return required.length ? { properties, required } : { properties };
    }

    const exported = (file: string, name: string): ts.Symbol => {
        const source = program.getSourceFile(path.join(ROOT, file))!;
        const sym = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).find((s) => s.getName() === name);
        if (!sym) throw new Error(`${file} exports no ${name}`);
        return sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
    };

    const mayBeAbsent = (p: ts.Symbol): boolean =>
        (p.getDeclarations() ?? []).some((d) => ts.isPropertyDeclaration(d) && /\bundefined\b/.test(d.type?.getText() ?? ""));

    const resources: Record<string, Spec> = {};
    for (const r of RESOURCES) {
        const args = exported(r.file, r.args);
        const inputs = objectOf(checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(args)));
        const cls = exported(r.file, r.name);
        const instance = checker.getDeclaredTypeOfSymbol(cls);
        const own = checker.getPropertiesOfType(instance).filter((p) => p.getDeclarations()?.some((d) => d.getSourceFile().fileName === path.join(ROOT, r.file) && ts.isPropertyDeclaration(d)));
        const outputs = objectOf(own);
        // An adopted or imported server has none of the order's facts, and one not provisioned yet no KVM.
        const optional = new Set<string>(r.name === "KvmServer" ? [...OPTIONAL_WHEN_ADOPTED, "kvmId"] : []);
        const requiredInputs = (inputs.required ?? []).filter((n) => !optional.has(n));
        const secretInputs = (r.name === "VncAccess" ? ["password"] : r.name === "TrafficAlert" ? ["callbackPassword"] : []).filter((n) => inputs.properties[n]);
        for (const n of secretInputs) inputs.properties[n].secret = true;
        // Every input is an output too (state keeps it), except the secrets, which are never outputs.
        const properties = { ...Object.fromEntries(Object.entries(inputs.properties).filter(([n]) => !secretInputs.includes(n))), ...outputs.properties };
        const description = [docOf(cls), r.name === "KvmServer" ? `\n\n## Import\n\nAn existing server is brought under management by its service id, with nothing ordered:\n\n\`\`\`sh\npulumi import edis:index:KvmServer <name> <serviceId>\n\`\`\`` : ""].join("");
        resources[`${PKG}:index:${r.name}`] = {
            description,
            inputProperties: inputs.properties,
            ...(requiredInputs.length ? { requiredInputs } : {}),
            properties,
            required: own.filter((p) => !mayBeAbsent(p) && !optional.has(p.getName())).map((p) => p.getName()),
        };
    }

    const functions: Record<string, Spec> = {};
    for (const f of FUNCTIONS) {
        const fn = exported(f.file, f.name);
        const sig = checker.getSignaturesOfType(checker.getTypeOfSymbol(fn), ts.SignatureKind.Call)[0];
        const argsType = checker.getTypeOfSymbol(sig.getParameters()[0]);
        const argProps = checker.getPropertiesOfType(checker.getNonNullableType(argsType));
        // The result's types first: their order in schema.json is the order they are met.
        const outputs = { type: "object", ...objectOf(checker.getPropertiesOfType(unwrap(sig.getReturnType()))) };
        const inputs = argProps.length ? { inputs: { type: "object", ...objectOf(argProps) } } : {};
        functions[`${PKG}:index:${f.name}`] = { description: docOf(fn), ...inputs, outputs };
    }

    const variables: Record<string, Spec> = {};
    for (const [name, s] of Object.entries(SETTINGS)) {
        variables[name] = {
            ...(s.type in ENUMS ? enumRef(s.type) : { type: s.type }),
            description: `${s.doc} Environment variable when unset: \`${s.env}\`.`,
            // The engine keeps a provider's settings in state: the credentials are secrets there.
            ...(name === "password" || name === "email" ? { secret: true } : {}),
        };
    }

    return {
        name: PKG,
        displayName: "EDIS Global",
        version: packageVersion(),
        description: "Order, refresh and cancel EDIS Global KVM virtual servers, and manage them day two (VNC, reverse DNS, traffic alerts).",
        keywords: ["pulumi", "edis", "kvm", "vps", "category/infrastructure"],
        homepage: "https://www.edis.at",
        license: "Apache-2.0",
        repository: "https://github.com/pulumi-edis/pulumi-edis",
        publisher: "pulumi-edis",
        // Where `pulumi plugin install` fetches the archives .ci/plugin-archives.sh builds: this repository's releases.
        pluginDownloadURL: "github://api.github.com/pulumi-edis/pulumi-edis",
        config: { variables },
        provider: {
            description: "The EDIS provider. Its settings come from the stack config (`edis:*`) or the environment; none is required until an operation needs it.",
            inputProperties: variables,
        },
        resources,
        functions,
        types,
        language: {
            nodejs: { packageName: "pulumi-edis", dependencies: { "@pulumi/pulumi": "^3.248.0" } },
            // respectSchemaVersion: the SDKs carry the schema's version (the plugin's), so a program asks for this plugin.
            python: { packageName: "pulumi_edis", requires: { pulumi: ">=3.0.0,<4.0.0" }, respectSchemaVersion: true },
            go: { importBasePath: "github.com/pulumi-edis/pulumi-edis/sdk/go/edis", generateResourceContainerTypes: true, respectSchemaVersion: true },
        },
    };
}

/** An enum value's name in the SDKs: "End of Billing Period" is EndOfBillingPeriod. */
function pascal(value: string): string {
    return value.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());
}

export function schemaJson(): string {
    return `${JSON.stringify(buildSchema(), null, 2)}\n`;
}

if (require.main === module) {
    if (process.argv.includes("--write")) writeFileSync(path.join(ROOT, "schema.json"), schemaJson());
    else process.stdout.write(schemaJson());
}
