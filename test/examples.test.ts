/**
 * The examples and the demo, run as a user runs them: the examples under the engine-path harness against
 * the simulator, and `npm run demo` itself.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { stackConfigFor, startSimulator } from "./support/sim";

const EXAMPLES = join(__dirname, "..", "examples");
let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => (sim = await startSimulator({ provisioningDelayMs: 300 })));
afterEach(async () => {
    stack?.dispose();
    await sim.stop();
});

/** Calls the program's lookups made (the provider host's own pre-order checks announce another agent). */
function programCalls(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const e of sim.log.filter((x) => x.userAgent.includes("lookup"))) counts[e.endpoint] = (counts[e.endpoint] ?? 0) + 1;
    return counts;
}

test("examples/basic: up exports the chosen server; refresh sees no drift; destroy cancels it", async () => {
    stack = TestStack.create({ programDir: join(EXAMPLES, "basic"), config: stackConfigFor(sim), secretKeys: ["edis:email", "edis:password"] });
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    expect(up.outputs).toEqual({
        kvmId: expect.stringMatching(/^kvm_\d+_\d+$/),
        apiHost: expect.stringMatching(/^kvm\d+\.api\.edis-sim\.invalid$/),
        serviceId: expect.any(Number),
        planName: "KVM M",
        osName: "Debian 12 (64bit)",
        monthlyPrice: "8.00 EUR",
    });
    expect(sim.account.state.services).toEqual([expect.objectContaining({ pid: 102, os: 1012, hostname: "web-1.example.com" })]);
    expect(programCalls()).toEqual({ "get/locations": 1, "get/products": 1 });

    const refresh = await stack.refresh();
    expect(refresh.errors).toEqual([]);
    expect(refresh.drift).toEqual({});
    sim.clearLog();
    const down = await stack.destroy();
    expect(down.errors).toEqual([]);
    expect(sim.calls("cancel/product").map((c) => c.fields.type)).toEqual(["End of Billing Period"]);
});

test("examples/basic as written: the catalogue gaining a newer Debian and a cheaper plan replaces nothing and bills nothing", async () => {
    stack = TestStack.create({ programDir: join(EXAMPLES, "basic"), config: stackConfigFor(sim), secretKeys: ["edis:email", "edis:password"] });
    expect((await stack.up()).errors).toEqual([]);
    const ordered = stack.resource("web")!;

    // At EDIS: Debian 13 for every Frankfurt plan, and a cheaper plan that fits 2048 MB.
    const frankfurt = sim.account.plans.filter((p) => p.locationId === 1);
    for (const plan of frankfurt) plan.addons["operating system"]!.push({ id: 1013, description: "Debian 13 (64bit)" });
    sim.account.plans.push({ ...frankfurt[1], pid: 150, name: "KVM M Promo", monthly: 6 });
    sim.clearLog();

    const up = await stack.up();
    expect(up.errors).toEqual([]);
    // The lookups see the new catalogue; the running server stays as it was ordered.
    expect(up.outputs).toMatchObject({ planName: "KVM M Promo", osName: "Debian 13 (64bit)", monthlyPrice: "6.00 EUR" });
    expect(up.steps.filter((s) => s.op !== "refresh").map((s) => `${s.name} ${s.op}`)).toEqual(["web same"]);
    expect(stack.resource("web")).toMatchObject({ id: ordered.id, outputs: { planId: 102, osId: 1012 } });
    expect(sim.calls("add/order").length + sim.calls("add/upgrade").length + sim.calls("cancel/product").length).toBe(0);
});

test("examples/fleet: three servers over two locations with one SSH key, each catalogue answer fetched once, cancelled immediately", async () => {
    stack = TestStack.create({ programDir: join(EXAMPLES, "fleet"), config: stackConfigFor(sim), secretKeys: ["edis:email", "edis:password"] });
    const without = await stack.up();
    expect(without.errors.join("\n")).toContain("Missing required configuration variable 'edis-fleet:sshPublicKey'");
    expect(sim.calls("add/order")).toEqual([]);
    stack.setConfig("edis-fleet:sshPublicKey", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINrWGRolS8WmRbi62V96xA7WjSOMTE/l86PC+sXZS5SN ops@example");
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    expect(Object.keys(up.outputs!.kvmIds as object)).toEqual(["web-1", "web-2", "db-1"]);
    expect(Object.values(up.outputs!.kvmIds as object).every((id) => /^kvm_/.test(String(id)))).toBe(true);
    // One management host per server, as the vendor's example shows.
    const hosts = Object.values(up.outputs!.apiHosts as Record<string, string>);
    expect(new Set(hosts).size).toBe(3);
    for (const h of hosts) expect(h).toMatch(/^kvm\d+\.api\.edis-sim\.invalid$/);
    const services = sim.account.state.services;
    expect(services.map((s) => [s.hostname, s.pid])).toEqual(
        expect.arrayContaining([["web-1.example.com", 101], ["web-2.example.com", 101], ["db-1.example.com", 203]]),
    );
    expect(new Set(services.map((s) => s.sshPublicKey)).size).toBe(1);
    expect(services[0].sshPublicKey).toMatch(/^ssh-ed25519 /);
    // Nine lookups over two locations: one get/locations, one get/products per location.
    expect(programCalls()).toEqual({ "get/locations": 1, "get/products": 2 });

    expect((await stack.refresh()).drift).toEqual({});
    const down = await stack.destroy();
    expect(down.errors).toEqual([]);
    expect(sim.calls("cancel/product").map((c) => c.fields.type)).toEqual(["Immediate", "Immediate", "Immediate"]);
    expect(sim.account.state.services.every((s) => s.status === "Cancelled")).toBe(true);
});

test("examples/day-two: power, VNC, reverse DNS and a traffic alert on one server; a plain preview sees no change; destroy removes each", async () => {
    stack = TestStack.create({ programDir: join(EXAMPLES, "day-two"), config: stackConfigFor(sim), secretKeys: ["edis:email", "edis:password"] });
    stack.setConfig("edis-day-two:sshPublicKey", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINrWGRolS8WmRbi62V96xA7WjSOMTE/l86PC+sXZS5SN ops@example");
    stack.setConfig("edis-day-two:vncPassword", "Abcd1234", true);
    const up = await stack.up();
    expect(up.errors).toEqual([]);
    expect(up.outputs).toEqual({
        kvmId: expect.stringMatching(/^kvm_/),
        powerState: "on",
        trafficSuspended: false,
        vncEndpoint: expect.stringMatching(/^vnc\.edis-sim\.invalid:\d+$/),
        trafficHookId: expect.any(Number),
    });
    const server = sim.account.state.services[0];
    expect(server.vnc?.password).toBe("Abcd1234");
    expect(server.hooks).toEqual([expect.objectContaining({ url: "https://hooks.example.com/edis-traffic", trigger: "80" })]);

    // The address, as the user reads it from the KVM portal.
    stack.setConfig("edis-day-two:publicIp", server.ips![0]);
    expect((await stack.up()).errors).toEqual([]);
    expect(server.ptr).toEqual({ [server.ips![0]]: "web-1.example.com" });

    const preview = await stack.preview();
    expect(preview.errors).toEqual([]);
    expect(preview.hasChanges).toBe(false);

    expect((await stack.destroy()).errors).toEqual([]);
    expect(server).toMatchObject({ hooks: [], ptr: {}, cancellation: { type: "End of Billing Period" } });
    expect(server.vnc).toBeUndefined();
    expect(stack.stateText()).not.toContain("Abcd1234");
});

test("npm run demo (after its build): says there is no CLI, then up, drift in a plain preview, refresh, destroy, and the simulator's record", () => {
    // Hide any Pulumi CLI this machine may have, so that the harness path is the one tested.
    const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !existsSync(join(dir, "pulumi"))).join(delimiter);
    // `npm run demo` is the build, then the demo. `npm test` has just built dist/, and a second build here would
    // rewrite (truncate, then write) the files that the other test files' provider hosts load at that moment
    // through their hard links (a host then loads an empty module): so the test runs the demo's own command.
    const root = join(__dirname, "..");
    const demo = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.demo as string;
    const [build, command] = demo.split(" && ");
    expect(build).toBe("npm run build --silent");
    expect(command).toBe("node dist/examples/demo.js");
    const run = spawnSync(process.execPath, command.split(" ").slice(1), {
        cwd: root,
        env: { ...process.env, PATH: path },
        encoding: "utf8",
        timeout: 120_000,
    });
    expect(run.status).toBe(0);
    const lines = run.stdout.split("\n").filter((l) => l.trim());
    expect(lines[0]).toMatch(/^No Pulumi CLI on the PATH \(install it with .*get\.pulumi\.com.*\): running the same steps through the engine-path harness/);
    const text = lines.join("\n");
    const order = ["== pulumi up (examples/basic)", "+ web  create", "outputs: kvmId=kvm_", "resources: 1 created", "== behind Pulumi's back: EDIS suspends web-1.example.com", "== pulumi preview (Pulumi.yaml: options.refresh: always", "~ web  refresh: update (suspended)", "~ web  update", "~ web  drift: suspended false -> true", "plan: 1 to update; `pulumi preview --expect-no-changes` would fail", "== pulumi refresh", "~ web  refresh: update (suspended)", "resources: 1 updated", "== pulumi destroy", "- web  delete", "resources: 1 deleted"];
    let at = 0;
    for (const piece of order) {
        const found = text.indexOf(piece, at);
        expect({ piece, found: found >= 0 }).toEqual({ piece, found: true });
        at = found;
    }
    expect(lines[lines.length - 1]).toBe(
        "== simulator record: 1 order(s) placed, 1 service(s) cancelled (End of Billing Period), 0 running without a cancellation",
    );
    expect(text).not.toContain("error:");
});
