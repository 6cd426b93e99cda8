// The plugin with the real CLI and a YAML program: the plan names the input forcing a replacement, replaceOnChanges
// works (both dead for the dynamic resource); the engine's money cases via the plugin (journal key: the URN it gets).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SimulatorOptions } from "../../simulator/server";
import { CliResult, CliStack } from "./pulumi";
import { docBlocks } from "../support/docs";
import { clientFor, orderProvisioned } from "../support/sim";
import { runNamedCommand } from "../support/journalCommand";
import { CliFixture, DOORS, cliStacksPerTest, expectNoCredentials, failed, installPlugin, ok, openDoor, paidWrites, upKilledWhileProvisioning } from "./support";

const YAML = join(__dirname, "..", "..", "examples", "yaml");
const open = cliStacksPerTest();

/** examples/yaml with the plugin installed from its release archive, as a Pulumi user installs a provider (`pulumi plugin ls` lists it: support.ts). */
async function openYaml(sim: SimulatorOptions = {}): Promise<CliFixture> {
    const f = await open(YAML, { sim });
    await installPlugin(f.stack);
    return f;
}

/** The engine's detailed diff of a resource in a preview, from its event log. */
function detailOf(r: CliResult, name: string): Record<string, string> | undefined {
    for (const e of r.events) {
        const m = e.resourcePreEvent?.metadata;
        if (m && m.urn.endsWith(`::${name}`) && m.detailedDiff) {
            return Object.fromEntries(Object.entries(m.detailedDiff).map(([k, d]) => [k, d.diffKind]));
        }
    }
    return undefined;
}

function editProgram(stack: CliStack, edit: (yaml: string) => string): void {
    const file = join(stack.project.dir, "Pulumi.yaml");
    writeFileSync(file, edit(readFileSync(file, "utf8")));
}

/** The YAML examples of the reference pages as one program: their resources, variables and outputs (by page) merged. */
function referenceExamples(header: string[]): string {
    const sections: Record<string, Map<string, string>> = { resources: new Map(), variables: new Map(), outputs: new Map() };
    for (const { file, code } of docBlocks("yaml").filter((b) => b.file.startsWith("docs/reference/"))) {
        const page = file.split("/").pop()!.replace(/\.md$/, "");
        let section: Map<string, string> | undefined;
        let entry: { key: string; lines: string[] } | undefined;
        const flush = () => {
            if (!entry || !section) return;
            const text = entry.lines.join("\n");
            if (section.has(entry.key) && section.get(entry.key) !== text) throw new Error(`reference examples: ${entry.key} differs between pages (${page})`);
            section.set(entry.key, text);
        };
        for (const line of code.split("\n").filter(Boolean)) {
            const top = /^(\w+):/.exec(line);
            const start = /^ {2}(\S+):/.exec(line);
            if (top || start) flush();
            if (top) [section, entry] = [sections[top[1]], undefined];
            else if (start && section) {
                const key = section === sections.outputs ? `${page}_${start[1]}` : start[1];
                entry = { key, lines: [line.replace(start[1], key)] };
            } else entry?.lines.push(line);
        }
        flush();
    }
    return [...header, ...Object.entries(sections).flatMap(([name, entries]) => [`${name}:`, ...entries.values()])].join("\n") + "\n";
}

test("every YAML example of the reference pages previews through the plugin, merged into one program: names and types as the schema has them, nothing ordered", async () => {
    const { sim, stack } = await openYaml();
    editProgram(stack, (y) => referenceExamples(y.split("\n").filter((l) => /^(name|runtime):/.test(l))));
    const preview = ok(await stack.preview());
    expect(preview.ops).toMatchObject({ server: ["create"], web: ["create"], vnc: ["create"], ptr: ["create"], alert: ["create"] });
    expect(paidWrites(sim)).toEqual([]);
});

test("a YAML program orders, refreshes and cancels a server through the plugin; preview names what replaces it, and replaceOnChanges works", async () => {
    const f = await openYaml({ faults: [{ endpoint: "add/order", drop: "before" }] });
    const { sim, stack } = f;
    // A lost answer: the printed forget command runs the installed plugin's own code (never `npx`), as pasted.
    const lost = failed(await stack.up());
    expect(lost.output).toMatch(/`node '[^']*\/plugins\/resource-edis-v[^']*\/cli\.js' orders forget /);
    expect(await runNamedCommand(lost.output, "forget", stack.project.dir)).toContain("forgot:");
    expect(sim.account.state.orders).toEqual([]);
    sim.clearLog();
    // Lookups the TypeScript SDK has are the plugin's functions too: a list of plans, and one KVM's entry (no credential).
    const invoke = (name: string, fn: string, args: string) => `  ${name}:\n    fn::invoke:\n      function: edis:index:${fn}\n      arguments:\n        ${args}\n`;
    editProgram(stack, (y) =>
        y
            .replace("resources:\n", `${invoke("plans", "getPlans", "locationId: ${location.id}")}${invoke("session", "getKvmSession", "kvmId: ${web.kvmId}")}resources:\n`)
            .replace("outputs:\n", "outputs:\n  cheapest: ${plans.plans[0].name}\n  apiHost: ${session.apiHost}\n  session: ${session}\n"),
    );

    const up = ok(await stack.up());
    expect(up.ops.web).toEqual(["create"]);
    // A `get` of the server the program holds only reads it: not taken for an import, nothing refused or sent.
    const serviceId = sim.account.state.services[0].serviceId;
    editProgram(stack, (y) => y.replace("resources:\n", `resources:\n  other:\n    type: edis:index:KvmServer\n    get:\n      id: "${serviceId}"\n`));
    expect(ok(await stack.up()).ops.other).toEqual(["read"]);
    const outputs = await stack.outputs();
    expect(outputs).toMatchObject({ cheapest: "KVM S", apiHost: expect.stringContaining("edis-sim") });
    expect(Object.keys(outputs.session as object)).not.toContain("signature");
    // Installed, not found on the PATH: the engine says nothing about where it found it.
    expect(up.output).not.toContain("from $PATH");
    expect(paidWrites(sim)).toEqual(["add/order"]);
    const server = (await stack.resources()).web;
    expect(server.type).toBe("edis:index:KvmServer");
    expect(server.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/), hostname: "web-1.example.com", planId: expect.any(Number) });
    // The journal's identity is the URN the plugin received.
    expect(server.outputs!.__resourceKey).toBe(server.urn);
    // The provider's lines show under the resource they are about, not under the stack.
    const ordered = up.events.map((e) => e.diagnosticEvent).find((d) => d?.message.includes("ordered web-1.example.com"));
    expect(ordered?.urn).toBe(server.urn);

    ok(await stack.preview(["--expect-no-changes"]));
    ok(await stack.refresh());
    ok(await stack.preview(["--expect-no-changes"]));

    // A host name change replaces the server: the plan says which input forces it.
    editProgram(stack, (y) => y.replace("default: web-1.example.com", "default: web-2.example.com"));
    const replacing = ok(await stack.preview());
    expect(detailOf(replacing, "web")).toEqual({ hostname: "update-replace" });
    expect(replacing.changes).toMatchObject({ replace: 1 });
    editProgram(stack, (y) => y.replace("default: web-2.example.com", "default: web-1.example.com"));

    // cancellationType changes in place, unless the program lists it in replaceOnChanges.
    editProgram(stack, (y) => y.replace("      hostname: ${hostname}\n", "      hostname: ${hostname}\n      cancellationType: Immediate\n"));
    const inPlace = ok(await stack.preview());
    expect(detailOf(inPlace, "web")).toEqual({ cancellationType: "add" });
    expect(inPlace.changes).toMatchObject({ update: 1 });
    editProgram(stack, (y) => y.replace("      ignoreChanges:\n", "      replaceOnChanges:\n        - cancellationType\n      ignoreChanges:\n"));
    const asked = ok(await stack.preview());
    expect(asked.changes).toMatchObject({ replace: 1 });
    expect(paidWrites(sim)).toEqual(["add/order"]);

    editProgram(stack, (y) => y.replace("      replaceOnChanges:\n        - cancellationType\n", "").replace("      cancellationType: Immediate\n", ""));
    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
    await expectNoCredentials(f);
});

test("pulumi import brings a server ordered outside Pulumi under management: nothing is ordered, the generated code previews with no diff, and its plan is recorded without an order", async () => {
    const f = await openYaml();
    const { sim, stack } = f;
    ok(await stack.up());

    // A server the customer ordered in the EDIS client area, provisioned.
    const { serviceId } = await orderProvisioned(clientFor(sim), "legacy-1.example.com");
    sim.clearLog();

    const code = join(stack.workDir, "imported.yaml");
    const imported = ok(await stack.run(["import", "edis:index:KvmServer", "legacy", String(serviceId), "--yes", "--out", code]));
    expect(imported.output).toContain("1 imported");
    expect(paidWrites(sim)).toEqual([]);
    const generated = readFileSync(code, "utf8");
    expect(generated).toMatch(/type: edis:(index:)?KvmServer/);
    expect(generated).toContain("adoptKvmId: kvm_");
    expect(generated).toContain("hostname: legacy-1.example.com");

    // The generated code, added to the program as the CLI says, previews with no change.
    editProgram(stack, (y) => y.replace("resources:\n", `resources:\n${generated.replace(/^resources:\n/, "")}`));
    ok(await stack.preview(["--expect-no-changes"]));

    // Stating its plan and operating system records them: an update that sends nothing to EDIS.
    editProgram(stack, (y) => y.replace("      hostname: legacy-1.example.com\n", "      hostname: legacy-1.example.com\n      planId: 101\n      osId: 1012\n      billingCycle: monthly\n"));
    const learned = ok(await stack.up());
    expect(learned.ops.legacy).toEqual(["update"]);
    expect(paidWrites(sim)).toEqual([]);
    expect((await stack.resources()).legacy.outputs).toMatchObject({ serviceId, planId: 101, osId: 1012 });
    ok(await stack.preview(["--expect-no-changes"]));

    // Import protects it; unprotected, destroy cancels both servers.
    editProgram(stack, (y) => y.replace(/\n    options:\n      protect: true\n/, "\n"));
    ok(await stack.up());
    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["cancel/product", "cancel/product"]);
    await expectNoCredentials(f);
});

test("Ctrl-C while the server is provisioned: the wait stops, the server is in state with its service id, and the next up finishes it without a second order", async () => {
    // EDIS takes an hour: without the engine's cancellation reaching the wait, this up would not end within the test's limit.
    const { sim, stack } = await openYaml({ provisioningDelayMs: 3_600_000 });
    // Ctrl-C as a terminal sends it: SIGINT to the CLI's process group, once the wait has begun.
    const interrupted = failed(await upKilledWhileProvisioning(sim, stack, "SIGINT"));
    expect(interrupted.output).toContain("the deployment was cancelled while web-1.example.com (service 1003");
    expect((await stack.resources()).web.outputs).toMatchObject({ serviceId: 1003 });
    sim.account.state.services[0].provisionAt = Date.now();
    ok(await stack.up());
    expect((await stack.resources()).web.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/) });
    expect(paidWrites(sim)).toEqual(["add/order"]);
});

test("an unpaid invoice stops the create through the plugin: the server reaches state with its init error, and once paid the next up finishes it without a second order", async () => {
    const f = await openYaml({ unpaidInvoices: true, provisioningDelayMs: 1000 });
    const { sim, stack } = f;
    const first = failed(await stack.up());
    expect(first.output).toContain("is unpaid");
    const stalled = (await stack.resources()).web;
    expect(stalled).toMatchObject({ id: "1003", initErrors: [expect.stringContaining("unpaid")] });
    expect(paidWrites(sim)).toEqual(["add/order"]);

    sim.account.payInvoice(sim.account.state.invoices[0].invoiceId);
    const resumed = ok(await stack.up());
    expect(resumed.ops.web).toEqual(["update"]);
    expect(resumed.output).toContain("not ordering again");
    expect((await stack.resources()).web.outputs).toMatchObject({ serviceId: 1003, kvmId: expect.stringMatching(/^kvm_/) });
    expect(paidWrites(sim)).toEqual(["add/order"]);
    ok(await stack.preview(["--expect-no-changes"]));
    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
    await expectNoCredentials(f);
});

describe("what the engine does not tell the plugin, and the plugin must not need", () => {
    test("killed after the order answered, then renamed with an alias (the engine gives a plugin only the new URN): nothing is ordered again, and the error says how to recover", async () => {
        const { sim, stack } = await openYaml({ provisioningDelayMs: 3000 });
        failed(await upKilledWhileProvisioning(sim, stack));
        ok(await stack.run(["cancel", "--yes"]));
        const rename = (y: string) => y.replace("  web:\n", "  web2:\n").replace("    options:\n", "    options:\n      aliases:\n        - urn:pulumi:dev::edis-yaml::edis:index:KvmServer::web\n").replace(/\$\{web\./g, "${web2.");
        editProgram(stack, rename);
        const refused = failed(await stack.up());
        expect(refused.output).toContain("holds an unfinished order for urn:pulumi:dev::edis-yaml::edis:index:KvmServer::web (web-1.example.com, service 1003)");
        expect(paidWrites(sim)).toEqual(["add/order"]);

        // As the error says: one up under the old name records the order; then the rename moves it in state.
        editProgram(stack, () => readFileSync(join(YAML, "Pulumi.yaml"), "utf8"));
        expect(ok(await stack.up()).output).toContain("not ordered again");
        ok(await stack.refresh(["--clear-pending-creates"]));
        ok(await stack.preview(["--expect-no-changes"]));
        editProgram(stack, rename);
        const renamed = ok(await stack.up());
        expect(renamed.ops.web2).toEqual(["same"]);
        expect(paidWrites(sim)).toEqual(["add/order"]);
        expect((await stack.resources()).web2.outputs).toMatchObject({ serviceId: 1003 });
        ok(await stack.destroy());
        expect(paidWrites(sim)).toEqual(["add/order", "cancel/product"]);
    });

    test("replaceOnChanges on an adopted server's input that is recorded in place: the forced replacement would adopt the same KVM, and is refused before anything is cancelled", async () => {
        const { sim, stack } = await openYaml();
        const { serviceId, kvmId: kvm } = await orderProvisioned(clientFor(sim), "legacy-1.example.com");
        editProgram(stack, (y) => y.replace("resources:\n", `resources:\n  legacy:\n    type: edis:index:KvmServer\n    properties:\n      adoptKvmId: ${kvm}\n      hostname: legacy-1.example.com\n    options:\n      replaceOnChanges:\n        - osId\n`));
        ok(await stack.up());
        sim.clearLog();

        editProgram(stack, (y) => y.replace("      hostname: legacy-1.example.com\n", "      hostname: legacy-1.example.com\n      osId: 1012\n"));
        const refused = failed(await stack.up());
        expect(refused.output).toContain("adopts the KVM it already is");
        expect(paidWrites(sim)).toEqual([]);
        expect((await stack.resources()).legacy.outputs).toMatchObject({ serviceId });

        // Without the option, the same change is recorded in place, and nothing is sent to EDIS.
        editProgram(stack, (y) => y.replace("    options:\n      replaceOnChanges:\n        - osId\n", ""));
        expect(ok(await stack.up()).ops.legacy).toEqual(["update"]);
        expect(paidWrites(sim)).toEqual([]);
        ok(await stack.destroy());
        expect(paidWrites(sim)).toEqual(["cancel/product", "cancel/product"]);
    });

    test("a credential set in plain text in the stack config is kept encrypted in the provider's state (the engine stores a provider's settings there); VNC password digests are secrets in state", async () => {
        const { sim, stack } = await openYaml();
        await stack.setConfig({ "edis:email": sim.account.state.email }, []);
        editProgram(stack, (y) => y.replace("outputs:\n", "  vnc:\n    type: edis:index:VncAccess\n    properties:\n      kvmId: ${web.kvmId}\n      password: abcd1234\noutputs:\n"));
        ok(await stack.up());
        const provider = (await stack.deployment()).resources!.find((r) => r.type === "pulumi:providers:edis")!;
        expect(JSON.stringify(provider.inputs!.email)).toContain("ciphertext");
        const vnc = (await stack.resources()).vnc;
        expect(JSON.stringify(vnc.outputs!.passwordDigest)).toContain("ciphertext");
        expect(stack.backendText()).not.toContain("abcd1234");
        const state = await stack.exportText();
        for (const credential of [sim.account.state.email, sim.account.state.password]) expect(state).not.toContain(credential);
        ok(await stack.destroy());
    });
});

test("replaceOnChanges [\"*\"] on what changed at EDIS (a server suspended, its VNC switched off): the plan is an update that re-reads it, never a replacement that orders or switches VNC off", async () => {
    const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };
    const { sim, stack } = await openDoor(open, DOORS[1], { web });
    const manifest = join(stack.project.dir, "Pulumi.yaml");
    const program = JSON.parse(readFileSync(manifest, "utf8"));
    program.resources.web.options = { replaceOnChanges: ["*"] };
    program.resources.vnc = { type: "edis:index:VncAccess", properties: { kvmId: "${web.kvmId}", password: "abcd1234" }, options: { replaceOnChanges: ["*"] } };
    writeFileSync(manifest, JSON.stringify(program, null, 2));
    ok(await stack.up());
    const server = sim.account.state.services[0];
    sim.account.setSuspended(server.serviceId, true);
    expect(ok(await stack.preview(["--refresh"])).ops.web).toEqual(["refresh", "update"]);
    ok(await stack.up(["--refresh"]));
    sim.account.setSuspended(server.serviceId, false);
    ok(await stack.up(["--refresh"]));

    delete server.vnc;
    expect(ok(await stack.preview(["--refresh"])).ops.vnc).toEqual(["refresh", "update"]);
    expect(ok(await stack.up(["--refresh"])).ops.vnc).toEqual(["refresh", "update"]);
    expect(sim.account.state.services[0].vnc?.password).toBe("abcd1234");
    expect(paidWrites(sim)).toEqual(["add/order"]);
});

test("replaceOnChanges [\"*\"] also matches the engine's init errors (docs/installation-configuration.md): a create stopped by an unpaid invoice is planned as a replacement", async () => {
    const web = { planId: 101, osId: 1012, hostname: "web1.example.com" };
    const { sim, stack } = await openDoor(open, DOORS[1], { web }, { sim: { unpaidInvoices: true } });
    const manifest = join(stack.project.dir, "Pulumi.yaml");
    const program = JSON.parse(readFileSync(manifest, "utf8"));
    program.resources.web.options = { replaceOnChanges: ["*"] };
    writeFileSync(manifest, JSON.stringify(program, null, 2));
    expect(failed(await stack.up()).output).toContain("is unpaid");
    expect(ok(await stack.preview()).ops.web).toEqual(["create-replacement", "replace", "delete-replaced"]);
    expect(paidWrites(sim)).toEqual(["add/order"]);
});
