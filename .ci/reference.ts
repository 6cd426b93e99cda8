/**
 * The reference (docs/reference/): a page per resource and per function, built from schema.json, the description every
 * language's SDK carries (`npm run reference` writes it; test/pluginSchema.test.ts checks the committed pages are fresh).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";

const ROOT = [path.join(__dirname, ".."), path.join(__dirname, "..", "..")].find((d) => existsSync(path.join(d, "schema.json")))!;
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

const NAMES =
    "Names are as TypeScript and YAML write them; Python writes them in snake_case (`plan_id`), Go in PascalCase (`PlanId`).";

/** The pages by file name: `_index.md`, then one per resource and function. */
export function referencePages(schema = JSON.parse(readFileSync(path.join(ROOT, "schema.json"), "utf8"))): Record<string, string> {
    const types = schema.types as Record<string, Spec>;
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
    /** Every object type the page names, and those they name in turn. */
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
    for (const [token, r] of Object.entries<Record<string, unknown>>(schema.resources)) {
        const name = short(token);
        const seen = new Set<string>();
        const sections = [
            `Token: \`${token}\``,
            "",
            ...table("Inputs", r.inputProperties as Record<string, Spec>, (r.requiredInputs as string[]) ?? [], seen),
            ...table("Outputs", r.properties as Record<string, Spec>, (r.required as string[]) ?? [], seen),
            ...((r.description as string).includes("## Import") ? ["## Import", "", text((r.description as string).split("## Import")[1]), ""] : []),
        ];
        pages[`${name.toLowerCase()}.md`] = page(name, (r.description as string).split("## Import")[0], [...sections, ...typesSection(seen)]);
        index.push(`- [${name}](${name.toLowerCase()}.md): ${text((r.description as string).split(/\.\s/)[0])}.`);
    }
    index.push("", "## Functions", "");
    for (const [token, f] of Object.entries<Record<string, Spec>>(schema.functions)) {
        const name = short(token);
        const seen = new Set<string>();
        const sections = [`Token: \`${token}\``, "", ...table("Arguments", f.inputs?.properties, f.inputs?.required, seen), ...table("Result", f.outputs.properties, f.outputs.required, seen)];
        pages[`${name.toLowerCase()}.md`] = page(name, f.description as unknown as string, [...sections, ...typesSection(seen)]);
        index.push(`- [${name}](${name.toLowerCase()}.md): ${text(f.description as unknown as string)}`);
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

/** The pages committed now, by file name. */
export function committedPages(): Record<string, string> {
    if (!existsSync(REFERENCE_DIR)) return {};
    return Object.fromEntries(readdirSync(REFERENCE_DIR).map((f) => [f, readFileSync(path.join(REFERENCE_DIR, f), "utf8")]));
}
