/** docs/reference/: a page per resource and function, from schema.json (`npm run schema`; pluginSchema.test checks). */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { PACKAGE_ROOT as ROOT } from "../provider/version";

export const REFERENCE_DIR = path.join(ROOT, "docs", "reference");

interface Spec {
    type?: string;
    $ref?: string;
    items?: Spec;
    additionalProperties?: Spec;
    description?: string;
    secret?: boolean;
    properties?: Record<string, Spec>;
    required?: string[];
    enum?: Array<{ name: string; value: string }>;
}

/** One example per page, in TypeScript, Python, Go and YAML; "${web.<output>}" is an output of KvmServer "web". */
interface Example {
    name: string;
    args: Record<string, string | number | boolean>;
    output: string;
    server?: boolean;
}
const WEB = { planId: 101, osId: 1012, hostname: "web-1.example.com" };
const EXAMPLES: Record<string, Example> = {
    KvmServer: { name: "server", args: { planId: 101, osId: 1012, hostname: "server-1.example.com", billingCycle: "monthly", cancellationType: "Immediate" }, output: "kvmId" },
    VncAccess: { name: "vnc", server: true, args: { kvmId: "${web.kvmId}", password: "Vnc12345" }, output: "port" },
    ReverseDns: { name: "ptr", server: true, args: { kvmId: "${web.kvmId}", ipAddress: "192.0.2.10", dnsPtr: "web-1.example.com" }, output: "dnsPtr" },
    TrafficAlert: { name: "alert", server: true, args: { kvmId: "${web.kvmId}", callbackUrl: "https://hooks.example.com/edis", triggerPercent: 80 }, output: "hookId" },
    getLocations: { name: "all", args: {}, output: "locations" },
    getLocation: { name: "frankfurt", args: { name: "Frankfurt" }, output: "id" },
    getPlans: { name: "candidates", args: { locationId: 1, minRamMb: 2048, billingCycle: "annually" }, output: "plans" },
    getPlan: { name: "plan", args: { locationId: 1, minRamMb: 2048, maxPrice: 10 }, output: "id" },
    getOperatingSystems: { name: "systems", args: { locationId: 1, planId: 101 }, output: "operatingSystems" },
    getOperatingSystem: { name: "debian", args: { locationId: 1, planId: 101, nameRegex: "^Debian" }, output: "id" },
    getAddon: { name: "ram", args: { locationId: 1, planId: 101, group: "ram", nameRegex: "1024 MB" }, output: "id" },
    getBillingCycles: { name: "cycles", args: {}, output: "billingCycles" },
    getPaymentMethods: { name: "methods", args: {}, output: "paymentMethods" },
    getKvmSessions: { name: "account", args: {}, output: "sessions" },
    getKvmSession: { name: "session", server: true, args: { kvmId: "${web.kvmId}" }, output: "apiHost" },
    getKvmId: { name: "kvm", server: true, args: { serviceId: "${web.serviceId}" }, output: "kvmId" },
    getServiceId: { name: "service", server: true, args: { kvmId: "${web.kvmId}" }, output: "serviceId" },
};

const snake = (n: string) => n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const pascal = (n: string) => n[0].toUpperCase() + n.slice(1);
const REF = /^\$\{web\.(\w+)\}$/;

function exampleSections(token: string, types: Record<string, Spec>, inputs: Record<string, Spec>, isFunction: boolean, webRequired: string[]): string[] {
    const name = token.split(":").pop()!;
    const ex = EXAMPLES[name];
    if (!ex) throw new Error(`reference: no example for ${name}`);
    const enumOf = (arg: string) => {
        const ref = inputs[arg]?.$ref?.replace("#/types/", "");
        const t = ref ? types[ref] : undefined;
        return t?.enum ? { type: ref!.split(":").pop()!, member: t.enum.find((e) => e.value === ex.args[arg])!.name } : undefined;
    };
    const value = (arg: string, lang: "ts" | "python" | "go" | "yaml"): string => {
        const v = ex.args[arg];
        const ref = typeof v === "string" ? REF.exec(v)?.[1] : undefined;
        // Go types an output that may be absent (a KVM id before provisioning) as a pointer: Elem() is its value.
        if (ref) return { ts: `web.${ref}`, python: `web.${snake(ref)}`, go: `web.${pascal(ref)}${webRequired.includes(ref) ? "" : ".Elem()"}`, yaml: v as string }[lang];
        const e = enumOf(arg);
        if (e && lang === "python") return `edis.${e.type}.${snake(e.member).replace(/^_/, "").toUpperCase()}`;
        if (e && lang === "go") return `edis.${e.type}${e.member}`;
        if (lang === "python" && typeof v === "boolean") return v ? "True" : "False";
        if (lang !== "go") return JSON.stringify(v);
        const wrap = { integer: "Int", number: "Float64", boolean: "Bool", string: "String" }[inputs[arg]?.type ?? "string"];
        return `pulumi.${wrap}(${JSON.stringify(v)})`;
    };
    const args = Object.keys(ex.args);
    const call = { ts: isFunction ? `edis.${name}Output` : `new edis.${name}`, python: isFunction ? `edis.${snake(name)}_output` : `edis.${name}`, go: isFunction ? `edis.${pascal(name)}Output` : `edis.New${name}` };
    const server = ex.server ? { ts: `const web = new edis.KvmServer("web", { ${Object.entries(WEB).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")} });\n`, python: `web = edis.KvmServer("web", plan_id=${WEB.planId}, os_id=${WEB.osId}, hostname="${WEB.hostname}")\n` } : { ts: "", python: "" };
    const tsArgs = args.length ? `{ ${args.map((a) => `${a}: ${value(a, "ts")}`).join(", ")} }` : "";
    const ts = [
        `import * as edis from "pulumi-edis";`,
        "",
        `${server.ts}const ${ex.name} = ${call.ts}(${isFunction ? tsArgs : `"${ex.name}", ${tsArgs}`});`,
        `export const ${ex.output} = ${ex.name}.${ex.output};`,
    ];
    const pyArgs = args.map((a) => `${snake(a)}=${value(a, "python")}`);
    const python = [
        "import pulumi",
        "import pulumi_edis as edis",
        "",
        `${server.python}${ex.name} = ${call.python}(${[...(isFunction ? [] : [`"${ex.name}"`]), ...pyArgs].join(", ")})`,
        `pulumi.export("${ex.output}", ${ex.name}.${snake(ex.output)})`,
    ];
    const goFields = args.map((a) => `${pascal(a)}: ${value(a, "go")}`).join(", ");
    const goCheck = ["\t\tif err != nil {", "\t\t\treturn err", "\t\t}"];
    const goWeb = ex.server ? [`\t\tweb, err := edis.NewKvmServer(ctx, "web", &edis.KvmServerArgs{PlanId: pulumi.Int(${WEB.planId}), OsId: pulumi.Int(${WEB.osId}), Hostname: pulumi.String("${WEB.hostname}")})`, ...goCheck] : [];
    const goBody = isFunction
        ? [`\t\t${ex.name} := ${call.go}(ctx${args.length ? `, edis.${pascal(name)}OutputArgs{${goFields}}` : ""})`]
        : [`\t\t${ex.name}, err := ${call.go}(ctx, "${ex.name}", &edis.${name}Args{${goFields}})`, ...goCheck];
    const go = [
        "package main",
        "",
        "import (",
        '\t"github.com/pulumi-edis/pulumi-edis/sdk/go/edis"',
        '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
        ")",
        "",
        "func main() {",
        "\tpulumi.Run(func(ctx *pulumi.Context) error {",
        ...goWeb,
        ...goBody,
        // A function's output has a method per result field; a resource has a field per output.
        `\t\tctx.Export("${ex.output}", ${ex.name}.${pascal(ex.output)}${isFunction ? "()" : ""})`,
        "\t\treturn nil",
        "\t})",
        "}",
    ];
    const yamlArgs = args.map((a) => `${isFunction ? "        " : "      "}${a}: ${value(a, "yaml")}`);
    const yamlWeb = ex.server ? ["  web:", "    type: edis:index:KvmServer", "    properties:", ...Object.entries(WEB).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)] : [];
    const yaml = [
        `name: edis-${name.toLowerCase()}`,
        "runtime: yaml",
        ...(ex.server || !isFunction ? ["resources:", ...yamlWeb] : []),
        ...(isFunction
            ? ["variables:", `  ${ex.name}:`, "    fn::invoke:", `      function: ${token}`, ...(args.length ? ["      arguments:", ...yamlArgs] : [])]
            : [`  ${ex.name}:`, `    type: ${token}`, "    properties:", ...yamlArgs]),
        "outputs:",
        `  ${ex.output}: \${${ex.name}.${ex.output}}`,
    ];
    const block = (heading: string, lang: string, lines: string[]) => [`### ${heading}`, "", `\`\`\`${lang}`, ...lines, "```", ""];
    return ["## Example", "", ...block("TypeScript", "ts", ts), ...block("Python", "python", python), ...block("Go", "go", go), ...block("YAML", "yaml", yaml)];
}

const NAMES =
    "Names are as TypeScript and YAML write them; Python writes them in snake_case (`plan_id`), Go in PascalCase (`PlanId`).";

export function referencePages(schema = JSON.parse(readFileSync(path.join(ROOT, "schema.json"), "utf8"))): Record<string, string> {
    const types = schema.types as Record<string, Spec>;
    const webRequired = schema.resources["edis:index:KvmServer"].required as string[];
    const short = (token: string) => token.split(":").pop()!;

    /** A type as a cell; object types it names are collected for the page's Types section. */
    const typeOf = (s: Spec, seen: Set<string>): string => {
        if (s.$ref) {
            const token = s.$ref.replace("#/types/", "");
            const t = types[token];
            seen.add(token);
            return t.enum ? `${short(token)}: ${t.enum.map((e) => `\`${e.value}\``).join(", ")}` : `[${short(token)}](#${short(token).toLowerCase()})`;
        }
        if (s.type === "array") return `list of ${typeOf(s.items!, seen)}`;
        if (s.type === "object" && s.additionalProperties) return `map of ${typeOf(s.additionalProperties, seen)}`;
        return s.type ?? "any";
    };
    const text = (d = "") =>
        d
            .replace(/```ts\n[\s\S]*?```\n?/g, "")
            .replace(/\s*\n\s*/g, " ")
            .replace(/\|/g, "\\|")
            .trim();
    const table = (heading: string, props: Record<string, Spec> = {}, required: string[] = [], seen: Set<string>) => {
        const rows = Object.entries(props).map(([n, p]) => `| \`${n}\` | ${typeOf(p, seen)} | ${required.includes(n) ? "yes" : ""}${p.secret ? " (secret)" : ""} | ${text(p.description)} |`);
        return rows.length ? [`## ${heading}`, "", "| name | type | required | description |", "|---|---|---|---|", ...rows, ""] : [];
    };
    const typesSection = (seen: Set<string>) => {
        const out: string[] = [];
        const done = new Set<string>();
        const pending = () => [...seen].sort().find((t) => !done.has(t));
        for (let next = pending(); next; next = pending()) {
            done.add(next);
            const t = types[next];
            if (!t.enum) out.push(...table(short(next), t.properties, t.required, seen).map((l) => (l.startsWith("## ") ? `### ${l.slice(3)}` : l)));
        }
        return out.length ? ["## Types", "", ...out] : [];
    };
    const page = (title: string, description: string, sections: string[]) => [`# ${title}`, "", text(description), "", NAMES, "", ...sections].join("\n").replace(/\n+$/, "\n");

    const pages: Record<string, string> = {};
    const index = ["---", "title: Reference", "meta_desc: Every resource and function of the edis provider, with its inputs and outputs.", "layout: package", "---", "", "# Reference", ""];
    index.push("Built from the provider's schema: what every language's SDK offers.", "", "## Resources", "");
    /** A page per resource and function: the same sections, under the headings each kind uses. */
    const addPage = (token: string, description: string, isFunction: boolean, inputs: Spec = {}, outputs: Spec) => {
        const name = short(token);
        const seen = new Set<string>();
        const [summary, imports] = description.split("## Import");
        const sections = [
            `Token: \`${token}\``,
            "",
            ...table(isFunction ? "Arguments" : "Inputs", inputs.properties, inputs.required, seen),
            ...table(isFunction ? "Result" : "Outputs", outputs.properties, outputs.required, seen),
            ...exampleSections(token, types, inputs.properties ?? {}, isFunction, webRequired),
            ...(imports ? ["## Import", "", imports.trim(), ""] : []),
        ];
        pages[`${name.toLowerCase()}.md`] = page(name, summary, [...sections, ...typesSection(seen)]);
        index.push(`- [${name}](${name.toLowerCase()}.md): ${isFunction ? text(summary) : `${text(summary.split(/\.\s/)[0])}.`}`);
    };
    for (const [token, r] of Object.entries<Spec & { inputProperties: Record<string, Spec>; requiredInputs?: string[] }>(schema.resources)) {
        addPage(token, r.description ?? "", false, { properties: r.inputProperties, required: r.requiredInputs }, r);
    }
    index.push("", "## Functions", "");
    for (const [token, f] of Object.entries<{ description: string; inputs?: Spec; outputs: Spec }>(schema.functions)) {
        addPage(token, f.description, true, f.inputs, f.outputs);
    }
    pages["_index.md"] = `${index.join("\n")}\n`;
    return pages;
}

if (require.main === module) {
    const pages = referencePages();
    if (process.argv.includes("--write")) {
        rmSync(REFERENCE_DIR, { recursive: true, force: true });
        mkdirSync(REFERENCE_DIR, { recursive: true });
        for (const [file, body] of Object.entries(pages)) writeFileSync(path.join(REFERENCE_DIR, file), body);
    } else process.stdout.write(Object.keys(pages).join("\n") + "\n");
}

export function committedPages(): Record<string, string> {
    if (!existsSync(REFERENCE_DIR)) return {};
    return Object.fromEntries(readdirSync(REFERENCE_DIR).map((f) => [f, readFileSync(path.join(REFERENCE_DIR, f), "utf8")]));
}
