import { ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_EMAIL, DEFAULT_PASSWORD, EdisSimulator } from "../simulator/server";
import { startSimulator } from "./support/sim";

const CREDENTIALS = { email: DEFAULT_EMAIL, pw: DEFAULT_PASSWORD };

/** A form-encoded POST, as curl --data sends it. */
async function post(base: string, path: string, fields: Record<string, string | number> = {}) {
    const body = new URLSearchParams(Object.entries({ ...CREDENTIALS, ...fields }).map(([k, v]): [string, string] => [k, String(v)]));
    const res = await fetch(`${base}/kvm/v2/${path}`, { method: "POST", body });
    return { status: res.status, body: (await res.json()) as any };
}

function orderOf(pid: number, hostname: string) {
    return JSON.stringify({
        billingcycle: "monthly",
        paymentmethod: "paypal",
        applycredit: true,
        item: [{ pid, os: 1012, hostname, additional_ram: "", additional_vcpu: "", additional_ip: "", additional_diskboost: "", ssh_pubkey: "" }],
    });
}

describe("the simulated account", () => {
    let sim: EdisSimulator;
    // Provisioned on the second get/kvmid after payment: counted, never timed, so a busy machine cannot fail it.
    beforeEach(async () => (sim = await startSimulator({ provisioningDelayMs: 0, provisioningPolls: 1 })));
    const poll = (serviceid: string | number) => post(sim.url, "get/kvmid", { serviceid });
    afterEach(() => sim.stop());

    test("an unpaid invoice is never provisioned until it is paid", async () => {
        sim.behaviour.unpaidInvoices = true;
        const order = await post(sim.url, "add/order", { order: orderOf(101, "a.example.com") });
        expect(order.body.invoicepaid).toBe(false);
        for (let i = 0; i < 3; i++) expect((await poll(order.body.serviceids)).body.kvmid).toBeNull();
        await fetch(`${sim.url}/_sim/invoices/${order.body.invoiceid}/pay`, { method: "POST" });
        await poll(order.body.serviceids);
        expect((await poll(order.body.serviceids)).body.kvmid).toMatch(/^kvm_/);
    });

    test("cancel: End of Billing Period keeps the KVM listed; Immediate removes it; again is 404", async () => {
        const order = await post(sim.url, "add/order", { order: orderOf(101, "a.example.com") });
        const serviceid = order.body.serviceids;
        await poll(serviceid);
        await poll(serviceid);
        const later = await post(sim.url, "cancel/product", { serviceid, type: "End of Billing Period" });
        expect(later.body).toEqual({ status: "success", serviceid: Number(serviceid), clientid: 4242 });
        expect(Object.keys((await post(sim.url, "get/auth")).body.data)).toHaveLength(1);
        expect((await post(sim.url, "cancel/product", { serviceid, type: "Immediate" })).status).toBe(200);
        expect((await post(sim.url, "get/auth")).body.data).toEqual({});
        expect(await post(sim.url, "cancel/product", { serviceid, type: "Immediate" })).toEqual({
            status: 404,
            body: { status: "error", message: `Service not found (serviceid ${serviceid})` },
        });
        expect(sim.summary().cancellations).toBe(2);
    });

    test("401, 404 and 400 answers carry a JSON error body", async () => {
        expect(await post(sim.url, "get/locations", { pw: "wrong" })).toEqual({
            status: 401,
            body: { status: "error", message: "Authentication failed: invalid email or password" },
        });
        expect((await post(sim.url, "get/kvmid", { serviceid: 424242 })).status).toBe(404);
        expect((await post(sim.url, "constructor")).status).toBe(404);
        expect(await post(sim.url, "add/order", { order: "{not json" })).toEqual({ status: 400, body: { status: "error", message: "order is not valid JSON" } });
        expect((await post(sim.url, "cancel/product", { serviceid: 1, type: "Soon" })).status).toBe(400);
    });

    test("the admin interface: a password change needs a password, JSON or form-encoded; get/products needs location_id", async () => {
        expect((await fetch(`${sim.url}/_sim/password`, { method: "POST" })).status).toBe(400);
        expect((await fetch(`${sim.url}/_sim/password`, { method: "POST", body: "{not json" })).status).toBe(400);
        expect(sim.account.state.password).toBe(DEFAULT_PASSWORD);
        const form = await fetch(`${sim.url}/_sim/password`, { method: "POST", body: new URLSearchParams({ password: "n&w pw" }) });
        expect([form.status, sim.account.state.password]).toEqual([200, "n&w pw"]);
        sim.account.setPassword(DEFAULT_PASSWORD);
        expect(await post(sim.url, "get/products")).toEqual({ status: 400, body: { status: "error", message: "Missing location_id" } });
    });
});

describe("the command line", () => {
    let child: ChildProcess | undefined;
    const dir = mkdtempSync(join(tmpdir(), "edis-sim-cli-"));
    const cli = join(__dirname, "..", "dist", "simulator", "cli.js");
    afterEach(() => child?.kill());
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    function start(args: string[]): Promise<string> {
        child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "inherit"] });
        return new Promise((resolve, reject) => {
            child!.stdout!.once("data", (c: Buffer) => resolve(/listening on (\S+)/.exec(c.toString())?.[1] ?? c.toString()));
            child!.once("exit", (code) => reject(new Error(`simulator exited ${code}`)));
        });
    }

    test("says where it listens, answers form-encoded requests, and keeps state in --state across restarts", async () => {
        const state = join(dir, "state.json");
        const url = await start(["--port", "0", "--state", state, "--provisioning-delay-ms", "0", "--password", "s3cret&+"]);
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const body = new URLSearchParams({ email: DEFAULT_EMAIL, pw: "s3cret&+", order: orderOf(101, "kept.example.com") });
        const order = (await (await fetch(`${url}/kvm/v2/add/order`, { method: "POST", body })).json()) as any;
        expect(order.status).toBe("success");
        child!.kill();
        await new Promise((r) => child!.once("exit", r));

        expect(statSync(state).mode & 0o777).toBe(0o600);
        const again = await start(["--port", "0", "--state", state, "--credit", "12.5"]);
        const summary = (await (await fetch(`${again}/_sim/summary`)).json()) as any;
        expect(summary.services).toEqual([expect.objectContaining({ hostname: "kept.example.com", serviceId: Number(order.serviceids) })]);
        const auth = new URLSearchParams({ email: DEFAULT_EMAIL, pw: "s3cret&+", serviceid: order.serviceids });
        expect(((await (await fetch(`${again}/kvm/v2/get/kvmid`, { method: "POST", body: auth })).json()) as any).kvmid).toMatch(/^kvm_/);
        expect(summary.credit).toBe("12.50");
    });

    test("the start-up text labels every URL and the account, and sets the credentials as secrets", async () => {
        child = spawn(process.execPath, [cli, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
        let text = "";
        await new Promise<void>((resolve) => child!.stdout!.on("data", (c: Buffer) => (text += c.toString()).includes("paymentMethod") && resolve()));
        expect(text).toMatch(/^EDIS simulator listening on http:\/\/127\.0\.0\.1:\d+\n/);
        expect(text).toContain(`account: ${DEFAULT_EMAIL} (password: edis-demo-password)`);
        for (const key of ["baseUrl", "authUrl", "managementUrl", "paymentMethod"]) expect(text).toContain(`pulumi config set edis:${key} `);
        // The credentials as secrets: a KvmServer refuses plain-text ones, so the printed commands must set them so.
        for (const key of ["email", "password"]) {
            expect(text).toContain(`pulumi config set --secret edis:${key} `);
            expect(text).not.toContain(`pulumi config set edis:${key} `);
        }
    });
});
