// schema.json is what `npm run schema` (.ci/schema.ts) makes: every property described, secrets marked, inputs matched.
import * as fs from "node:fs";
import * as path from "node:path";
import { schemaJson } from "../.ci/schema";
import { committedPages, referencePages } from "../.ci/reference";
import { INPUT_NAMES, OUTPUT_ONLY_NAMES } from "../provider/kvm/inputs";
import { FUNCTION_TOKENS } from "../provider/plugin/functions";
import { SETTINGS } from "../provider/config";

const FILE = path.join(__dirname, "..", "schema.json");

describe("schema.json", () => {
    const built = schemaJson();
    const schema = JSON.parse(fs.readFileSync(FILE, "utf8"));

    it("is fresh: what the declarations build (npm run schema writes it)", () => {
        expect(fs.readFileSync(FILE, "utf8")).toBe(built);
    });

    it("declares KvmServer's inputs and outputs exactly as the provider takes and returns them", () => {
        const server = schema.resources["edis:index:KvmServer"];
        expect(Object.keys(server.inputProperties).sort()).toEqual([...INPUT_NAMES].sort());
        expect(Object.keys(server.properties).sort()).toEqual([...INPUT_NAMES, ...OUTPUT_ONLY_NAMES].sort());
        // Import and adoption leave the order's facts out: nothing is required.
        expect(server.requiredInputs).toBeUndefined();
    });

    it("serves a function for every lookup it declares, and declares every one it serves", () => {
        expect(Object.keys(schema.functions).sort()).toEqual([...FUNCTION_TOKENS].sort());
    });

    it("documents every resource, property, function and setting", () => {
        const missing: string[] = [];
        const props = (where: string, p: Record<string, { description?: string }> | undefined) =>
            Object.entries(p ?? {}).forEach(([n, s]) => !s.description && missing.push(`${where}.${n}`));
        for (const [tok, r] of Object.entries<any>(schema.resources)) {
            if (!r.description) missing.push(tok);
            props(`${tok} input`, r.inputProperties);
            props(`${tok} output`, r.properties);
        }
        for (const [tok, f] of Object.entries<any>(schema.functions)) {
            if (!f.description) missing.push(tok);
            props(`${tok} argument`, f.inputs?.properties);
            props(`${tok} result`, f.outputs.properties);
        }
        for (const [tok, t] of Object.entries<any>(schema.types)) props(tok, t.properties);
        props("config", schema.config.variables);
        expect(missing).toEqual([]);
    });

    it("marks the credentials secret, and gives no function result a credential", () => {
        expect(schema.config.variables.password.secret).toBe(true);
        expect(schema.config.variables.email.secret).toBe(true);
        expect(schema.provider.inputProperties.password.secret).toBe(true);
        expect(schema.resources["edis:index:VncAccess"].inputProperties.password.secret).toBe(true);
        expect(schema.resources["edis:index:VncAccess"].properties.password).toBeUndefined();
        expect(schema.resources["edis:index:TrafficAlert"].inputProperties.callbackPassword.secret).toBe(true);
        expect(JSON.stringify(schema)).not.toMatch(/"signature"/);
        expect(Object.keys(schema.config.variables).sort()).toEqual(Object.keys(SETTINGS).sort());
        // Environment fallbacks are the provider's (read in configure), never an SDK default that would put
        // EDIS_PASSWORD into a provider's inputs, and so into state.
        expect(JSON.stringify(schema)).not.toMatch(/"defaultInfo"/);
    });

    it("types closed sets as enums and whole numbers as integers, in the schema and the configuration table alike", () => {
        const kvm = schema.resources["edis:index:KvmServer"].inputProperties;
        expect([kvm.billingCycle.$ref, kvm.cancellationType.$ref, kvm.powerState.$ref]).toEqual(["BillingCycle", "CancellationType", "PowerState"].map((n) => `#/types/edis:index:${n}`));
        expect(schema.types["edis:index:CancellationType"].enum).toEqual([{ name: "Immediate", value: "Immediate" }, { name: "EndOfBillingPeriod", value: "End of Billing Period" }]);
        expect(schema.functions["edis:index:getPlan"].inputs.properties.minRamMb.type).toBe("integer");
        expect(schema.config.variables.batchOrders.type).toBe("boolean");
        // Each setting's row in the docs: its key, its variable and the schema's type.
        const doc = fs.readFileSync(path.join(__dirname, "..", "docs", "installation-configuration.md"), "utf8");
        const rows = [...doc.matchAll(/^\| `edis:(\w+)` \| `(\w+)` \| ([^|]+) \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3].trim()}`);
        const variables = schema.config.variables as Record<string, { type?: string; $ref?: string }>;
        const typeOf = (name: string) => variables[name].type ?? `enum ${variables[name].$ref!.split(":").pop()}`;
        expect(rows.sort()).toEqual(Object.values(SETTINGS).map((s) => `${s.key} ${s.env} ${typeOf(s.key)}`).sort());
    });

    it("has its reference, a page per resource and function, as built from it (npm run schema writes both)", () => {
        const pages = referencePages(schema);
        expect(Object.keys(pages).sort()).toEqual(["_index.md", ...[...Object.keys(schema.resources), ...Object.keys(schema.functions)].map((t) => `${t.split(":").pop()!.toLowerCase()}.md`)].sort());
        expect(committedPages()).toEqual(pages);
        expect(pages["getplan.md"]).toContain("| `minRamMb` | integer |");
        expect(pages["kvmserver.md"]).toContain("| `billingCycle` | BillingCycle: `monthly`, `quarterly`, `semiannually`, `annually` |");
    });
});
