/**
 * Day two through the real dynamic-provider host: KvmServer.powerState, VncAccess, ReverseDns and TrafficAlert
 * on the simulator's per-server Management API hosts, with the `__provider` each class really serializes.
 * Every test ends by looking for the secrets (session signatures, the VNC and callback passwords, the
 * account password) in the state file, the provider host's log and the errors: they must be in none.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { OperationResult, TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { runNamedCommand, simulatorAndStack } from "./support/sim";

const PROGRAM = join(__dirname, "programs", "management");
const SERVER = { planId: 101, osId: 1012, hostname: "web-1.example.com" };
const VNC_PASSWORD = "Vnc4Test";
const CALLBACK_PASSWORD = "cb-pa$$word-42";

let sim: EdisSimulator;
let stack: TestStack;
const results: OperationResult[] = [];

beforeEach(async () => {
    ({ sim, stack } = await simulatorAndStack(PROGRAM, { provisioningDelayMs: 100 }));
    results.length = 0;
});
afterEach(async () => {
    // No secret anywhere Pulumi or a CI log keeps text.
    const text = [stack.stateText(), ...results.flatMap((r) => [...r.hostLog, ...r.errors, JSON.stringify(r.outputs ?? {})])].join("\n");
    for (const secret of [...sim.account.issuedSignatures, VNC_PASSWORD, CALLBACK_PASSWORD, sim.account.state.password]) {
        expect(text).not.toContain(secret);
    }
    stack.dispose();
    await sim.stop();
});

function declare(config: { server?: Record<string, unknown>; vnc?: string; ptr?: object; alert?: object; callbackPassword?: string }): void {
    stack.setConfig("edis-management:server", JSON.stringify({ ...SERVER, ...config.server }));
    for (const key of ["vncPassword", "ptr", "alert", "callbackPassword"]) delete stack.config[`edis-management:${key}`];
    if (config.vnc) stack.setConfig("edis-management:vncPassword", config.vnc, true);
    if (config.ptr) stack.setConfig("edis-management:ptr", JSON.stringify(config.ptr));
    if (config.alert) stack.setConfig("edis-management:alert", JSON.stringify(config.alert));
    if (config.callbackPassword) stack.setConfig("edis-management:callbackPassword", config.callbackPassword, true);
}

async function run(op: Promise<OperationResult>): Promise<OperationResult> {
    const r = await op;
    results.push(r);
    return r;
}

/** Steps as the CLI shows them; refreshes run in parallel, so their order is not compared. */
function shown(r: OperationResult): string[] {
    const steps = r.steps.map((s) => `${s.name} ${s.op}${s.result ? ` ${s.result}` : ""}`);
    return [...steps.filter((s) => s.includes(" refresh")).sort(), ...steps.filter((s) => !s.includes(" refresh"))];
}

const web = () => sim.account.state.services[0];
const managementWrites = () => sim.log.filter((e) => /^(set|hooks|del)\//.test(e.endpoint)).map((e) => e.endpoint);

describe("KvmServer.powerState", () => {
    test("create powered off; a second up switches nothing; switched on behind Pulumi's back shows in preview --refresh; up switches it back; destroy", async () => {
        declare({ server: { powerState: "off" } });
        const up = await run(stack.up());
        expect(up.errors).toEqual([]);
        expect(web().power).toBe("off");
        expect(up.outputs).toMatchObject({ powerState: "off", trafficSuspended: false });
        expect(managementWrites()).toEqual(["set/poweroff"]);

        sim.clearLog();
        const again = await run(stack.up());
        expect(shown(again)).toEqual(["web same"]);
        expect(sim.log).toEqual([]);

        sim.account.setPower(web().serviceId, "on");
        const preview = await run(stack.preview({ refresh: true }));
        expect(shown(preview)).toEqual(["web refresh update", "web update"]);
        expect(preview.drift).toEqual({ web: { powerState: { before: "off", after: "on" } } });
        expect(preview.hasChanges).toBe(true);
        expect(web().power).toBe("on");

        sim.clearLog();
        const fix = await run(stack.up({ refresh: true }));
        expect(fix.errors).toEqual([]);
        expect(web().power).toBe("off");
        expect(managementWrites()).toEqual(["set/poweroff"]);
        expect(sim.calls("add/order")).toHaveLength(0);

        declare({ server: { powerState: "on" } });
        expect(shown(await run(stack.up()))).toEqual(["web update"]);
        expect(web().power).toBe("on");

        expect((await run(stack.destroy())).errors).toEqual([]);
        expect(sim.summary().cancellations).toBe(1);
        expect(sim.account.state.orders).toHaveLength(1);
    });

    test("unmanaged: power is neither read nor switched, on create, refresh or up; managing it later reads it", async () => {
        declare({});
        expect((await run(stack.up())).errors).toEqual([]);
        expect(stack.resource("web")!.outputs.powerState).toBeUndefined();
        expect(stack.resource("web")!.outputs.trafficSuspended).toBeUndefined();
        sim.account.setPower(web().serviceId, "off");
        const refresh = await run(stack.refresh());
        expect(refresh.errors).toEqual([]);
        expect(stack.resource("web")!.outputs.powerState).toBeUndefined();
        expect(shown(await run(stack.up()))).toEqual(["web same"]);
        expect(sim.calls("get/power")).toEqual([]);
        expect(managementWrites()).toEqual([]);
        // Managing it is an update that reads the state EDIS gives; the next refresh reads it too.
        declare({ server: { powerState: "off" } });
        expect(shown(await run(stack.up()))).toEqual(["web update"]);
        expect(stack.resource("web")!.outputs).toMatchObject({ powerState: "off", trafficSuspended: false });
        expect(managementWrites()).toEqual([]);
        sim.clearLog();
        expect((await run(stack.refresh())).errors).toEqual([]);
        expect(sim.calls("get/power")).toHaveLength(1);
    });

    test("API Access off: create of a server with powerState fails after the order with what to enable; the next up finishes without ordering again", async () => {
        sim.account.state.apiAccess = false;
        declare({ server: { powerState: "off" } });
        const up = await run(stack.up());
        expect(up.errors.join("\n")).toContain("is provisioned, but it could not be powered off");
        expect(up.errors.join("\n")).toContain("enable API Access in the KVM portal of any of your servers (it applies to the whole account)");
        expect(stack.resource("web")!.initErrors?.length).toBe(1);
        expect(stack.resource("web")!.outputs.kvmId).toBe(web().kvmId);

        // A refresh of an unmanaged reading says so once and does not fail.
        sim.account.state.apiAccess = true;
        const rerun = await run(stack.up());
        expect(rerun.errors).toEqual([]);
        expect(web().power).toBe("off");
        expect(sim.calls("add/order")).toHaveLength(1);
    });
});

describe("the Management API failing", () => {
    test("a transient get/power failure is asked once more; a lasting one does not fail the refresh, is logged once, and shows a managed server as a change", async () => {
        declare({ server: { powerState: "on" } });
        expect((await run(stack.up())).errors).toEqual([]);

        sim.inject({ endpoint: "get/power", status: 503 });
        sim.clearLog();
        const retried = await run(stack.preview({ refresh: true }));
        expect(shown(retried)).toEqual(["web refresh same", "web same"]);
        expect(sim.calls("get/power").map((c) => c.httpStatus)).toEqual([503, 200]);

        sim.inject({ endpoint: "get/power", status: 500, times: 100 });
        const down = await run(stack.preview({ refresh: true }));
        expect(down.errors).toEqual([]);
        expect(down.hostLog.join("\n")).toContain(`warning: the power state of web-1.example.com (${web().kvmId}) could not be read: EDIS get/power: server error (HTTP 500)`);
        // Unclear is not "same": the plan shows the update that would check and switch it.
        expect(shown(down)).toEqual(["web refresh update", "web update"]);

        sim.clearFaults();
        sim.clearLog();
        const up = await run(stack.up({ refresh: true }));
        expect(up.errors).toEqual([]);
        expect(managementWrites()).toEqual([]);
        expect(stack.resource("web")!.outputs.powerState).toBe("on");
    });
});

describe("VncAccess", () => {
    test("create enables; read reports; a new password updates in place; disabled elsewhere is re-enabled; delete disables", async () => {
        declare({ vnc: VNC_PASSWORD });
        const up = await run(stack.up());
        expect(up.errors).toEqual([]);
        expect(web().vnc?.password).toBe(VNC_PASSWORD);
        expect(up.outputs!.vncEndpoint).toMatch(/^vnc\.edis-sim\.invalid:59\d\d$/);
        const vnc = stack.resource("web-vnc")!;
        expect(vnc.id).toBe(web().kvmId);
        expect(vnc.outputs).toMatchObject({ kvmId: web().kvmId, enabled: true, novncPort: 6080 });
        expect(vnc.outputs).not.toHaveProperty("password");
        // The engine keeps the secret input (the harness decrypts it for this look) and only ciphertext in the file.
        expect(vnc.inputs.password).toBe(VNC_PASSWORD);
        expect(stack.stateText()).not.toContain(VNC_PASSWORD);
        expect(JSON.parse(stack.stateText()).resources.find((r: { name: string }) => r.name === "web-vnc").outputs.passwordDigest).toHaveProperty("ciphertext");

        sim.clearLog();
        expect(shown(await run(stack.up()))).toEqual(["web same", "web-vnc same"]);
        expect(managementWrites()).toEqual([]);

        declare({ vnc: "Other123" });
        expect(shown(await run(stack.up()))).toEqual(["web same", "web-vnc update"]);
        expect(web().vnc?.password).toBe("Other123");

        delete web().vnc;
        const preview = await run(stack.preview({ refresh: true }));
        expect(shown(preview)).toEqual(["web refresh same", "web-vnc refresh update", "web same", "web-vnc update"]);
        expect((await run(stack.up({ refresh: true }))).errors).toEqual([]);
        expect(web().vnc?.password).toBe("Other123");

        declare({});
        const drop = await run(stack.up());
        expect(shown(drop)).toContain("web-vnc delete");
        expect(web().vnc).toBeUndefined();
    });

    test("a password EDIS would refuse is refused by check, before any call, without showing it", async () => {
        declare({ vnc: "short!" });
        const up = await run(stack.up());
        expect(up.errors.join("\n")).toContain("password must be exactly 8 letters or digits (A-Z, a-z, 0-9), as EDIS requires; the value given has 6 characters and others than letters and digits");
        expect(up.errors.join("\n")).not.toContain("short!");
        expect(sim.log.filter((e) => e.endpoint.includes("vnc"))).toEqual([]);
    });
});

describe("ReverseDns", () => {
    test("create and update set the record; refresh keeps it; delete removes it", async () => {
        declare({});
        expect((await run(stack.up())).errors).toEqual([]);
        const ip = web().ips![0];
        declare({ ptr: { ipAddress: ip, dnsPtr: "Web-1.Example.com." } });
        const up = await run(stack.up());
        expect(up.errors).toEqual([]);
        expect(web().ptr).toEqual({ [ip]: "web-1.example.com" });
        expect(stack.resource("web-ptr")!.id).toBe(`${web().kvmId}/${ip}`);

        declare({ ptr: { ipAddress: ip, dnsPtr: "www.example.com" } });
        expect(shown(await run(stack.up({ refresh: true })))).toEqual(["web refresh same", "web-ptr refresh same", "web same", "web-ptr update"]);
        expect(web().ptr).toEqual({ [ip]: "www.example.com" });

        declare({});
        expect(shown(await run(stack.up()))).toContain("web-ptr delete");
        expect(web().ptr).toEqual({});
        expect(sim.calls("del/ptr")).toHaveLength(1);
    });

    test("an address that is not an IP is refused by check; one EDIS does not know as the server's is EDIS's error", async () => {
        declare({ ptr: { ipAddress: "web-1", dnsPtr: "web-1.example.com" } });
        const bad = await run(stack.up());
        expect(bad.errors.join("\n")).toContain('ipAddress must be an IPv4 or IPv6 address of the server, such as "192.0.2.10" or "2001:db8::10", got "web-1"');
        declare({ ptr: { ipAddress: "203.0.113.7", dnsPtr: "web-1.example.com" } });
        const foreign = await run(stack.up());
        expect(foreign.errors.join("\n")).toContain("EDIS set/ptr: refused (HTTP 400); server said: 203.0.113.7 is not an address of");
        expect(stack.resource("web-ptr")).toBeUndefined();
    });
});

describe("TrafficAlert", () => {
    const ALERT = { callbackUrl: "https://hooks.example.com/edis", triggerPercent: 80, callbackUser: "edis" };

    test("create adds one hook; no change adds none; a change replaces (new hook, old deleted); destroy deletes", async () => {
        declare({ alert: ALERT, callbackPassword: CALLBACK_PASSWORD });
        const up = await run(stack.up());
        expect(up.errors).toEqual([]);
        expect(web().hooks).toEqual([{ id: up.outputs!.hookId, method: "post", url: ALERT.callbackUrl, trigger: "80", user: "edis", password: CALLBACK_PASSWORD }]);
        expect(stack.resource("web-traffic")!.outputs).not.toHaveProperty("callbackPassword");

        expect(shown(await run(stack.up()))).toEqual(["web same", "web-traffic same"]);
        declare({ alert: ALERT, callbackPassword: "another-one" });
        expect(shown(await run(stack.up()))).toEqual(["web same", "web-traffic replace", "web-traffic delete"]);
        declare({ alert: { ...ALERT, triggerPercent: 95 }, callbackPassword: "another-one" });
        expect(shown(await run(stack.up()))).toEqual(["web same", "web-traffic replace", "web-traffic delete"]);
        expect(web().hooks!.map((h) => h.trigger)).toEqual(["95"]);
        expect(sim.calls("hooks/set")).toHaveLength(3);

        expect((await run(stack.destroy())).errors).toEqual([]);
        expect(sim.calls("hooks/del")).toHaveLength(3);
        // As the engine orders a destroy: the alert (which depends on the server) first, then the cancel.
        expect(Math.max(...sim.calls("hooks/del").map((c) => c.seq))).toBeLessThan(sim.calls("cancel/product")[0].seq);
    });

    test("destroy: a hook that cannot be deleted keeps its server (no cancel) in state; the next destroy finishes both", async () => {
        declare({ alert: ALERT });
        expect((await run(stack.up())).errors).toEqual([]);
        sim.inject({ endpoint: "hooks/del", status: 400, message: "hook is locked", times: 1 });
        const failed = await run(stack.destroy());
        expect(failed.errors.join("\n")).toContain("hook is locked");
        expect(sim.calls("cancel/product")).toHaveLength(0);
        expect(stack.resource("web")).toBeDefined();
        expect(stack.resource("web-traffic")).toBeDefined();

        expect((await run(stack.destroy())).errors).toEqual([]);
        expect(sim.calls("cancel/product")).toHaveLength(1);
        expect(stack.state().resources).toEqual([]);
    });

    test("a lost hooks/set answer: an error that says a hook may exist, no second hooks/set until the user forgets it", async () => {
        declare({});
        expect((await run(stack.up())).errors).toEqual([]);
        declare({ alert: ALERT });
        sim.inject({ endpoint: "hooks/set", drop: "after" });
        const lost = await run(stack.up());
        const message = lost.errors.join("\n");
        expect(message).toContain("may or may not have been made");
        expect(message).toContain("a second one would call your URL twice");
        expect(web().hooks).toHaveLength(1);

        const blocked = await run(stack.up());
        expect(blocked.errors.join("\n")).toContain("may or may not have been made");
        expect(sim.calls("hooks/set")).toHaveLength(1);

        // The user removes the hook in the portal, then runs the command the error names.
        web().hooks = [];
        expect(runNamedCommand(message, "forget")).toContain("forgot: ");
        const created = await run(stack.up());
        expect(created.errors).toEqual([]);
        expect(web().hooks).toHaveLength(1);
        expect(sim.calls("hooks/set")).toHaveLength(2);
    });

    test("the whole deployment killed while hooks/set was at EDIS: the rerun sends nothing and says a hook may exist", async () => {
        declare({});
        expect((await run(stack.up())).errors).toEqual([]);
        declare({ alert: ALERT });
        sim.latencyByEndpoint["hooks/set"] = 1_500;
        const journal = join(stack.project.dir, ".pulumi-edis", "journal");
        stack.onHostStarted = () => {
            const watch = setInterval(() => {
                if (existsSync(journal) && readdirSync(journal).some((f) => f.endsWith(".hook.json"))) {
                    // The journal says "sending"; the request reaches EDIS a moment later and waits there 1.5 s.
                    clearInterval(watch);
                    setTimeout(() => void stack.crash(), 200);
                }
            }, 5);
        };
        results.push(await stack.up());
        stack.onHostStarted = undefined;
        await new Promise((r) => setTimeout(r, 2_000)); // EDIS adds the hook the dead deployment asked for
        expect(web().hooks).toHaveLength(1);

        const rerun = await run(stack.up());
        expect(rerun.warnings).toEqual([expect.stringContaining("1 pending create operation(s)")]);
        expect(rerun.errors.join("\n")).toContain("may or may not have been made: the deployment that sent it at");
        expect(sim.calls("hooks/set")).toHaveLength(1);
        expect(web().hooks).toHaveLength(1);
    });

    test("a hook created by a deployment whose engine died before recording it is taken from the journal, not created twice", async () => {
        declare({ alert: ALERT });
        // The engine dies after hooks/set answered and the journal says "done", before its checkpoint: the state has
        // only a pending create, and the program never heard of the hook (so it settled nothing).
        stack.dieAfterCreateOf = "web-traffic";
        await run(stack.up()).catch(() => undefined);
        const hookId = web().hooks![0].id;
        const rerun = await run(stack.up());
        expect(rerun.errors).toEqual([]);
        expect(rerun.warnings).toEqual([expect.stringContaining("1 pending create operation(s)")]);
        expect(rerun.hostLog.join("\n")).toContain(`traffic hook ${hookId} on ${web().kvmId} was created by a deployment that did not finish`);
        expect(sim.calls("hooks/set")).toHaveLength(1);
        expect(stack.resource("web-traffic")!.outputs.hookId).toBe(hookId);
    });
});
