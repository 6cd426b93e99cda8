// Day two in-process: powerState, VncAccess, ReverseDns, TrafficAlert on Management API hosts (real CLI: examples.cli).
import { kvmServerOn } from "../provider/kvm/provider";
import { reverseDnsOn } from "../provider/management/reverseDns";
import { trafficAlertOn } from "../provider/management/trafficAlert";
import { vncAccessOn } from "../provider/management/vncAccess";
import { EdisSimulator } from "../simulator/server";
import { Held, InProcess, simulatorAndCore } from "./support/inProcess";
import { runNamedCommand } from "./support/sim";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SERVER = { planId: 101, osId: 1012, hostname: "web-1.example.com" };
const VNC_PASSWORD = "Vnc4Test";
const CALLBACK_PASSWORD = "cb-pa$$word-42";
const ALERT = { callbackUrl: "https://hooks.example.com/edis", triggerPercent: 80, callbackUser: "edis" };

let sim: EdisSimulator;
let e: InProcess;
const deployments: InProcess[] = [];
/** A new provider process on the same journal: a deployment after the one that ran before. */
let nextDeployment: () => InProcess;

beforeEach(async () => {
    let next: () => InProcess;
    ({ sim, next } = await simulatorAndCore());
    deployments.length = 0;
    nextDeployment = () => {
        e = next();
        deployments.push(e);
        return e;
    };
    nextDeployment();
});
afterEach(async () => {
    // No secret in any line a deployment logged, error it threw or state it returned.
    const text = deployments.map((d) => d.log).join("\n");
    for (const secret of [...sim.account.issuedSignatures, VNC_PASSWORD, CALLBACK_PASSWORD, sim.account.state.password]) expect(text).not.toContain(secret);
    await sim.stop();
});

const web = () => sim.account.state.services[0];
const managementWrites = () => sim.log.filter((l) => /^(set|hooks|del)\//.test(l.endpoint)).map((l) => l.endpoint);
const server = () => kvmServerOn(e.core);
async function ordered(inputs: Record<string, unknown> = {}): Promise<Held> {
    return (await e.up(server(), undefined, { ...SERVER, ...inputs })).held;
}

describe("KvmServer.powerState", () => {
    test("create powered off; no change switches nothing; switched on behind Pulumi's back is drift; up switches it back", async () => {
        let web1 = await ordered({ powerState: "off" });
        expect(web().power).toBe("off");
        expect(web1.outs).toMatchObject({ powerState: "off", trafficSuspended: false });
        expect(managementWrites()).toEqual(["set/poweroff"]);

        sim.clearLog();
        expect((await e.up(server(), web1, { ...SERVER, powerState: "off" })).step).toBe("same");
        expect(sim.log).toEqual([]);

        sim.account.setPower(web().serviceId, "on");
        web1 = (await e.refresh(server(), web1))!;
        expect(web1.outs.powerState).toBe("on");
        const fix = await e.up(server(), web1, { ...SERVER, powerState: "off" });
        expect(fix.step).toBe("update");
        expect(web().power).toBe("off");
        expect(managementWrites()).toEqual(["set/poweroff"]);

        expect((await e.up(server(), fix.held, { ...SERVER, powerState: "on" })).step).toBe("update");
        expect(web().power).toBe("on");
        expect(sim.account.state.orders).toHaveLength(1);
    });

    test("API Access off: the create fails after the order with what to enable, keeping the server; the next up finishes without ordering again", async () => {
        sim.account.state.apiAccess = false;
        const web1 = await ordered({ powerState: "off" });
        expect(web1.initError).toContain("is provisioned, but it could not be powered off");
        expect(web1.initError).toContain("enable API Access in the KVM portal of any of your servers (it applies to the whole account)");
        expect(web1.outs.kvmId).toBe(web().kvmId);

        sim.account.state.apiAccess = true;
        expect((await e.up(server(), web1, { ...SERVER, powerState: "off" })).step).toBe("update");
        expect(web().power).toBe("off");
        expect(sim.calls("add/order")).toHaveLength(1);
    });

});

describe("VncAccess", () => {
    const vnc = () => vncAccessOn(e.core);

    test("create enables; a new password updates in place; disabled elsewhere is re-enabled; delete disables", async () => {
        const kvmId = (await ordered()).outs.kvmId;
        const created = await e.up(vnc(), undefined, { kvmId, password: VNC_PASSWORD });
        expect(web().vnc?.password).toBe(VNC_PASSWORD);
        expect(created.held.id).toBe(kvmId);
        expect(created.held.outs).toMatchObject({ kvmId, enabled: true, novncPort: 6080, host: "vnc.edis-sim.invalid" });
        expect(created.held.outs).not.toHaveProperty("password");
        expect(JSON.stringify(created.held.outs)).not.toContain(VNC_PASSWORD);

        sim.clearLog();
        expect((await e.up(vnc(), created.held, { kvmId, password: VNC_PASSWORD })).step).toBe("same");
        expect(managementWrites()).toEqual([]);

        const changed = await e.up(vnc(), created.held, { kvmId, password: "Other123" });
        expect(changed.step).toBe("update");
        expect(web().vnc?.password).toBe("Other123");

        delete web().vnc;
        const read = (await e.refresh(vnc(), changed.held))!;
        expect(read.outs.enabled).toBe(false);
        expect((await e.up(vnc(), read, { kvmId, password: "Other123" })).step).toBe("update");
        expect(web().vnc?.password).toBe("Other123");

        await e.destroy(vnc(), read);
        expect(web().vnc).toBeUndefined();
    });

    test("a password EDIS would refuse is refused by check, before any call, without showing it", async () => {
        const kvmId = (await ordered()).outs.kvmId;
        const refused = await e.failure(e.up(vnc(), undefined, { kvmId, password: "short!" }));
        expect(refused).toContain("password must be exactly 8 letters or digits (A-Z, a-z, 0-9), as EDIS requires; the value given has 6 characters and others than letters and digits");
        expect(refused).not.toContain("short!");
        expect(sim.log.filter((l) => l.endpoint.includes("vnc"))).toEqual([]);
    });
});

describe("ReverseDns", () => {
    const rdns = () => reverseDnsOn(e.core);

    test("create and update set the record; refresh keeps it; delete removes it", async () => {
        const kvmId = (await ordered()).outs.kvmId;
        const ip = web().ips![0];
        const created = await e.up(rdns(), undefined, { kvmId, ipAddress: ip, dnsPtr: "Web-1.Example.com." });
        expect(web().ptr).toEqual({ [ip]: "web-1.example.com" });
        expect(created.held.id).toBe(`${kvmId}/${ip}`);

        const read = (await e.refresh(rdns(), created.held))!;
        expect((await e.up(rdns(), read, { kvmId, ipAddress: ip, dnsPtr: "Web-1.Example.com." })).step).toBe("same");
        const changed = await e.up(rdns(), read, { kvmId, ipAddress: ip, dnsPtr: "www.example.com" });
        expect(changed.step).toBe("update");
        expect(web().ptr).toEqual({ [ip]: "www.example.com" });

        await e.destroy(rdns(), changed.held);
        expect(web().ptr).toEqual({});
        expect(sim.calls("del/ptr")).toHaveLength(1);
    });

    test("an address that is not an IP is refused by check; one EDIS does not know as the server's is EDIS's error", async () => {
        const kvmId = (await ordered()).outs.kvmId;
        expect(await e.failure(e.up(rdns(), undefined, { kvmId, ipAddress: "web-1", dnsPtr: "web-1.example.com" }))).toContain(
            'ipAddress must be an IPv4 or IPv6 address of the server, such as "192.0.2.10" or "2001:db8::10", got "web-1"',
        );
        expect(await e.failure(e.up(rdns(), undefined, { kvmId, ipAddress: "203.0.113.7", dnsPtr: "web-1.example.com" }))).toContain(
            "EDIS set/ptr: refused (HTTP 400); server said: 203.0.113.7 is not an address of",
        );
    });
});

describe("TrafficAlert", () => {
    const alert = () => trafficAlertOn(e.core);
    const upAlert = (held: Held | undefined, inputs: Record<string, unknown> = {}) => e.up(alert(), held, { kvmId: web().kvmId, ...ALERT, ...inputs }, "web-traffic");

    test("create adds one hook; no change adds none; a change replaces (new hook, old deleted); delete deletes", async () => {
        await ordered();
        const created = await upAlert(undefined, { callbackPassword: CALLBACK_PASSWORD });
        expect(web().hooks).toEqual([{ id: created.held.outs.hookId, method: "post", url: ALERT.callbackUrl, trigger: "80", user: "edis", password: CALLBACK_PASSWORD }]);
        expect(created.held.outs).not.toHaveProperty("callbackPassword");

        expect((await upAlert(created.held, { callbackPassword: CALLBACK_PASSWORD })).step).toBe("same");
        const password = await upAlert(created.held, { callbackPassword: "another-one" });
        expect(password.step).toBe("replace");
        const trigger = await upAlert(password.held, { triggerPercent: 95, callbackPassword: "another-one" });
        expect(trigger.step).toBe("replace");
        expect(web().hooks!.map((h) => h.trigger)).toEqual(["95"]);
        expect(sim.calls("hooks/set")).toHaveLength(3);

        await e.destroy(alert(), trigger.held);
        expect(web().hooks).toEqual([]);
        expect(sim.calls("hooks/del")).toHaveLength(3);
    });

    test("a lost hooks/set answer: an error that says a hook may exist, no second hooks/set until the user forgets it", async () => {
        await ordered();
        sim.inject({ endpoint: "hooks/set", drop: "after" });
        const lost = await e.failure(upAlert(undefined));
        expect(lost).toContain("may or may not have been made");
        expect(lost).toContain("a second one would call your URL twice");
        expect(web().hooks).toHaveLength(1);

        nextDeployment();
        expect(await e.failure(upAlert(undefined))).toContain("may or may not have been made");
        expect(sim.calls("hooks/set")).toHaveLength(1);

        // The user removes the hook in the portal, then runs the command the error names.
        web().hooks = [];
        expect(await runNamedCommand(lost, "forget")).toContain("forgot: ");
        await upAlert(undefined);
        expect(web().hooks).toHaveLength(1);
        expect(sim.calls("hooks/set")).toHaveLength(2);
    });

    test("a hook a deployment made but whose engine died before recording it is taken from the journal, not created twice; other inputs stop before a second hooks/set", async () => {
        await ordered();
        // The engine dies after hooks/set answered and the journal says "done": the result never reaches state.
        await upAlert(undefined);
        const hookId = web().hooks![0].id;

        nextDeployment();
        const other = await e.failure(upAlert(undefined, { triggerPercent: 90 }));
        expect(other).toContain("with other inputs than this resource now has, so it is not taken as this one");
        const taken = await upAlert(undefined);
        expect(e.log).toContain(`traffic hook ${hookId} on ${web().kvmId} was created by a deployment that did not finish`);
        expect(taken.held.outs.hookId).toBe(hookId);
        expect(sim.calls("hooks/set")).toHaveLength(1);
    });

    test("a hook whose engine died before recording it, then the resource renamed without an alias or its stack renamed: no second hooks/set", async () => {
        await ordered();
        await upAlert(undefined);
        const kvmId = web().kvmId;
        // Written by an earlier process, as every run is one (these deployments share this test's process).
        const dir = e.core.journal().dir;
        const file = join(dir, readdirSync(dir).filter((f) => f.includes(".hook.json")).sort().pop()!);
        writeFileSync(file, readFileSync(file, "utf8").replace(/"writer": "[^"]*"/, '"writer": "an earlier process"'));
        for (const [name, key] of [["web-traffic-2", undefined], ["web-traffic", "urn:pulumi:prod::p::edis:test::web-traffic"]]) {
            nextDeployment();
            const inputs = { kvmId, ...ALERT, ...(key ? { __resourceKey: key } : {}) };
            expect([name, await e.failure(e.up(alert(), undefined, inputs, name))]).toEqual([name, expect.stringMatching(/Nothing was sent, so that it cannot be paid twice/)]);
        }
        expect(sim.calls("hooks/set")).toHaveLength(1);
        // Renamed with another threshold too: the hook made still calls the URL, so it stops the write until settled.
        nextDeployment();
        expect(await e.failure(e.up(alert(), undefined, { kvmId, ...ALERT, triggerPercent: 95 }, "web-traffic-95"))).toContain("the same intent in this stack");
        expect(sim.calls("hooks/set")).toHaveLength(1);
    });
});
