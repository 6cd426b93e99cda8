// The examples through the real CLI against the simulator, its record checked after every command; no credential leaks.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../support/workspace";
import { pulumiBinDir } from "./pulumi";
import { cliStacksPerTest, expectNoCredentials, failed, ok, paidWrites } from "./support";

const EXAMPLES = join(PACKAGE_ROOT, "examples");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINrWGRolS8WmRbi62V96xA7WjSOMTE/l86PC+sXZS5SN you@laptop";

const open = cliStacksPerTest();

test("examples/basic: up, a quiet preview, drift (suspended at EDIS) failing --expect-no-changes, destroy", async () => {
    const f = await open(join(EXAMPLES, "basic"));
    const { sim, stack } = f;

    const up = ok(await stack.up());
    expect(up.ops).toEqual({ web: ["create"] });
    expect(paidWrites(sim)).toEqual(["add/order"]);
    const outputs = await stack.outputs();
    expect(outputs).toMatchObject({ kvmId: expect.stringMatching(/^kvm_\d+_\d+$/), planName: "KVM M", osName: "Debian 12 (64bit)" });
    const serviceId = outputs.serviceId as number;
    // What the engine stores per resource to find the provider again: a require of the package's shim, ≤ 1,024 bytes.
    const provider = String((await stack.resources()).web.inputs?.__provider ?? "");
    expect(provider).toContain('require("pulumi-edis/dist/sdk/shim/kvmServer.js")');
    expect(Buffer.byteLength(provider)).toBeLessThanOrEqual(1024);

    // Nothing drifted: the preview (which refreshes first, options.refresh: always) passes and sends nothing paid.
    sim.clearLog();
    const quiet = ok(await stack.preview(["--expect-no-changes"]));
    expect(quiet.ops).toEqual({ web: ["refresh", "same"] });
    expect(paidWrites(sim)).toEqual([]);

    // Suspended behind Pulumi's back: a plain preview shows it, and --expect-no-changes fails.
    sim.account.setSuspended(serviceId, true);
    const suspended = failed(await stack.preview(["--expect-no-changes"]));
    expect(suspended.ops.web).toEqual(["refresh", "update"]);
    expect(suspended.output).toContain("is suspended at EDIS");
    // Said once, though the engine asks diff for the refresh's drift and again for the plan.
    expect(suspended.output.split("is suspended at EDIS: the plan shows it").length - 1).toBe(1);
    expect(paidWrites(sim)).toEqual([]);
    sim.account.setSuspended(serviceId, false);
    ok(await stack.preview(["--expect-no-changes"]));

    // Catalogue drift under the example's ignoreChanges: a newer Debian and a cheaper plan change nothing, bill nothing.
    for (const plan of sim.account.plans.filter((p) => p.locationId === 1)) plan.addons["operating system"]!.push({ id: 1013, description: "Debian 13 (64bit)" });
    sim.account.plans.push({ ...sim.account.plans.find((p) => p.pid === 102)!, pid: 150, name: "KVM M2", monthly: 6 });
    ok(await stack.preview(["--expect-no-changes"]));
    expect(ok(await stack.up(["--expect-no-changes"])).ops.web).toEqual(["refresh", "same"]);
    expect(paidWrites(sim)).toEqual([]);

    ok(await stack.destroy());
    expect(paidWrites(sim)).toEqual(["cancel/product"]);
    expect(sim.summary().orders).toBe(1);
    await expectNoCredentials(f);
});

test("examples/fleet: a preview prices each server with the running total, orders nothing; three servers over two locations, exporting their monthly list price; unchanged on a second up, cancelled Immediate by destroy", async () => {
    const f = await open(join(EXAMPLES, "fleet"), { config: { "edis-fleet:sshPublicKey": KEY } });
    const { sim, stack } = f;
    const preview = ok(await stack.preview());
    const priced = [...preview.output.matchAll(/(\S+)\.example\.com: orders .* at list price before tax; this deployment adds ([\d.]+) EUR\/month so far/g)];
    expect([...new Set(priced.map((m) => m[1]))].sort()).toEqual(["db-1", "web-1", "web-2"]);
    expect(sim.calls("add/order")).toEqual([]);
    const up = ok(await stack.up());
    expect(up.ops).toEqual({ "web-1": ["create"], "web-2": ["create"], "db-1": ["create"] });
    // The stack's monthly total is the sum of the servers' list prices in state, and the preview's last running total.
    const prices = Object.values(await stack.resources()).flatMap((r) => (r.outputs?.listPrice ? [(r.outputs.listPrice as { monthly: number }).monthly] : []));
    expect(prices).toHaveLength(3);
    const total = prices.reduce((a, b) => a + b, 0).toFixed(2);
    expect((await stack.outputs()).monthlyListPrice).toBe(`${total} EUR`);
    expect(Math.max(...priced.map((m) => Number(m[2]))).toFixed(2)).toBe(total);
    expect(sim.account.state.services.map((s) => [s.hostname, s.sshPublicKey === KEY])).toEqual(
        expect.arrayContaining([["web-1.example.com", true], ["web-2.example.com", true], ["db-1.example.com", true]]),
    );
    sim.clearLog();
    const again = ok(await stack.up(["--expect-no-changes"]));
    expect(Object.values(again.ops)).toEqual([["refresh", "same"], ["refresh", "same"], ["refresh", "same"]]);
    ok(await stack.preview(["--expect-no-changes"]));
    ok(await stack.refresh(["--expect-no-changes"]));
    expect(paidWrites(sim)).toEqual([]);

    const down = ok(await stack.destroy());
    expect(down.changes).toMatchObject({ delete: 4 });
    expect(sim.calls("cancel/product").map((c) => c.fields.type)).toEqual(["Immediate", "Immediate", "Immediate"]);
    expect(sim.summary().orders).toBe(3);
    await expectNoCredentials(f);
});

test("examples/day-two: power, VNC and a traffic alert; a quiet preview; power switched off at EDIS shows; a failing VNC reading stops no preview or destroy; a hook EDIS will not delete stops the destroy before the cancel; the next destroy removes all", async () => {
    const f = await open(join(EXAMPLES, "day-two"), { config: { "edis-day-two:sshPublicKey": KEY, "edis-day-two:vncPassword": "Vnc12345" } });
    const { sim, stack } = f;
    await stack.setConfig({ "edis-day-two:vncPassword": "Vnc12345" }, ["edis-day-two:vncPassword"]);
    ok(await stack.up());
    const [service] = sim.account.state.services;
    expect(service).toMatchObject({ power: "on", vnc: expect.anything(), hooks: [expect.anything()] });
    expect(paidWrites(sim)).toEqual(["add/order"]);

    sim.clearLog();
    ok(await stack.preview(["--expect-no-changes"]));
    sim.account.setPower(service.serviceId, "off");
    const off = failed(await stack.preview(["--expect-no-changes"]));
    expect(off.ops.web).toEqual(["refresh", "update"]);
    ok(await stack.up());
    expect(sim.account.state.services[0].power).toBe("on");
    expect(sim.calls("hooks/set")).toEqual([]);

    // A VNC reading that fails (the management host answering 503) stops no preview, up or destroy, which refresh first.
    sim.inject({ endpoint: "get/vnc/status", status: 503, times: 1000 });
    expect(ok(await stack.preview(["--expect-no-changes"])).output).toContain("could not be read, so it was not checked");

    // A hook EDIS will not delete fails its delete: the engine deletes nothing that depends on it, so the server is not cancelled.
    sim.inject({ endpoint: "hooks/del", status: 400, message: "hook is locked", times: 1 });
    const blocked = failed(await stack.destroy());
    expect(blocked.output).toContain("hook is locked");
    expect(sim.calls("cancel/product")).toEqual([]);
    expect(Object.keys(await stack.resources())).toContain("web");
    const last = ok(await stack.destroy());
    // The VNC access, refreshed first by each destroy, is deleted by one of them (the engine deletes it beside the hook).
    expect([blocked, last].flatMap((r) => r.ops["web-vnc"] ?? []).filter((op) => op === "delete")).toEqual(["delete"]);
    expect(sim.summary().services[0]).toMatchObject({ vnc: false, hooks: 0, cancellation: "End of Billing Period" });
    expect(await stack.resources()).toEqual({});
    await expectNoCredentials(f);
    expect(stack.log.join("\n")).not.toContain("Vnc12345");
    expect(await stack.exportText()).not.toContain("Vnc12345");
});

test("a mistyped location or plan fails the preview with one line naming the lookup, the argument, what exists; no stack trace", async () => {
    const f = await open(join(EXAMPLES, "basic"));
    const { sim, stack } = f;
    for (const [key, value, words] of [
        ["edis-basic:location", "Viena", ['edis.getLocation: no location with name "Viena"', '"Vienna, Austria" (id 2)']],
        ["edis-basic:minRamMb", "999999", ["edis.getPlan: ", "999999"]],
    ] as const) {
        await stack.setConfig({ "edis-basic:location": "Frankfurt", "edis-basic:minRamMb": "2048", [key]: value });
        const r = failed(await stack.preview());
        const lines = r.output.split("\n").filter((l) => l.includes("edis.get"));
        expect(lines).toHaveLength(1);
        for (const w of words) expect(lines[0]).toContain(w);
        // Neither Node's rendering of an unhandled error nor a wrong attribution to a resource input.
        for (const noise of ["unhandled exception", "<ref *1>", "[Circular", "    at ", "this lookup's result was for"]) expect(r.output).not.toContain(noise);
    }
    expect(paidWrites(sim)).toEqual([]);
});

test("credentials set in plain text stop the program before anything is ordered, in preview and up, naming the key and the fix", async () => {
    const f = await open(join(EXAMPLES, "basic"));
    const { sim, stack } = f;
    const email = sim.account.state.email;
    await stack.setConfig({ "edis:email": email });
    for (const r of [await stack.preview(), await stack.up()]) {
        failed(r);
        expect(r.output).toContain("config edis:email is set in plain text");
        expect(r.output).toContain("pulumi config set --secret edis:email");
        for (const noise of ["unhandled exception", "    at "]) expect(r.output).not.toContain(noise);
    }
    expect(paidWrites(sim)).toEqual([]);
    expect(await stack.exportText()).not.toContain(email);
});

test("npm run demo takes the Pulumi CLI path when pulumi is on the PATH, and its record ends with one order and one cancellation", () => {
    const home = mkdtempSync(join(tmpdir(), "edis-demo-home-"));
    try {
        const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PULUMI_") && !k.startsWith("EDIS_")));
        const demo = spawnSync(process.execPath, [join(PACKAGE_ROOT, "dist", "examples", "demo.js")], {
            encoding: "utf8",
            env: { ...env, PATH: `${pulumiBinDir()}:${process.env.PATH}`, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_NODEJS_TRANSPILE_ONLY: "true" },
        });
        const lines = demo.stdout.trim().split("\n");
        expect({ status: demo.status, first: lines[0] }).toEqual({ status: 0, first: "Pulumi CLI found: deploying examples/basic with the Automation API and a local file:// backend." });
        const order = ["== pulumi up (examples/basic)", "resources: 2 create", "== behind Pulumi's back: EDIS suspends", "== pulumi preview", "suspended", "false => true", "plan: 1 update", "== pulumi refresh", "resources: 1 update", "== pulumi destroy", "resources: 2 delete"];
        let from = 0;
        expect(order.filter((piece) => (from = demo.stdout.indexOf(piece, from)) < 0)).toEqual([]);
        expect(demo.stdout + demo.stderr).not.toMatch(/error/i);
        expect(lines[lines.length - 1]).toBe("== simulator record: 1 order(s) placed, 1 service(s) cancelled (End of Billing Period), 0 running without a cancellation");
    } finally {
        rmSync(home, { recursive: true, force: true });
    }
});
