// The Management API client on the simulator's per-server hosts: endpoints, sessions, retries, secrets kept out.
import { nothingHappened } from "../provider/client/answers";
import { EdisClient } from "../provider/client/client";
import { ManagementClient } from "../provider/client/management";
import { EdisSimulator } from "../simulator/server";
import { clientFor, failureOf, orderProvisioned, startSimulator } from "./support/sim";

let sim: EdisSimulator;
let client: EdisClient;
let management: ManagementClient;
let kvmId: string;
let serviceId: number;
let retryLog: string[];

beforeEach(async () => {
    sim = await startSimulator({ provisioningDelayMs: 0 });
    retryLog = [];
    client = clientFor(sim, { log: (line) => retryLog.push(line) });
    management = new ManagementClient(client, { urlTemplate: sim.managementUrl });
    ({ kvmId, serviceId } = await orderProvisioned(client));
    sim.clearLog();
});
afterEach(() => sim.stop());

const failure = failureOf;

const server = () => sim.account.state.services.find((s) => s.serviceId === serviceId)!;

describe("each endpoint on the server's own host", () => {
    test("power: read, switch off and on; one session for all calls, sent to the server's api_host, never email or pw", async () => {
        expect(await management.getPower(kvmId)).toEqual({ state: "on", text: "server powered on", trafficSuspended: false });
        await management.setPower(kvmId, "off");
        expect(server().power).toBe("off");
        expect((await management.getPower(kvmId)).state).toBe("off");
        await management.setPower(kvmId, "on");
        expect(server().power).toBe("on");
        expect(sim.callCounts()).toEqual({ "get/auth": 1, "get/power": 2, "set/poweroff": 1, "set/poweron": 1 });
        for (const call of sim.log.filter((c) => c.endpoint !== "get/auth")) {
            expect(call.fields).toMatchObject({ kvm_id: kvmId, signature: "***" });
            expect(call.fields).not.toHaveProperty("email");
            expect(call.fields).not.toHaveProperty("pw");
        }
    });
});

describe("sessions", () => {
    test("a session about to expire is renewed before it is used", async () => {
        sim.account.behaviour.sessionTtlSeconds = 30; // inside the renewal margin
        await management.getPower(kvmId);
        await management.getPower(kvmId);
        expect(sim.callCounts()).toEqual({ "get/auth": 2, "get/power": 2 });
    });

    test("a refused signature (expired early, revoked) renews the session once and repeats the call once", async () => {
        await management.getPower(kvmId);
        sim.inject({ endpoint: "set/poweroff", status: 401, message: "Invalid or expired session signature" });
        await management.setPower(kvmId, "off");
        expect(server().power).toBe("off");
        expect(sim.callCounts()).toEqual({ "get/auth": 2, "get/power": 1, "set/poweroff": 2 });
    });

    test("API Access off: one renewal, then an error that says what to enable, without the signature", async () => {
        sim.account.state.apiAccess = false;
        const e = await failure(management.getPower(kvmId));
        expect(e.kind).toBe("session");
        expect(e.message).toContain("enable API Access in the KVM portal of any of your servers (it applies to the whole account)");
        expect(e.message).toContain("API access is not enabled");
        expect(sim.callCounts()).toEqual({ "get/auth": 2, "get/power": 2 });
        for (const signature of sim.account.issuedSignatures) {
            expect(e.message).not.toContain(signature);
            expect(JSON.stringify(e)).not.toContain(signature);
        }
    });

    test("API Access off on a call never repeated (vnc/enable): the same error, sent once, never the e-mail or password's", async () => {
        sim.account.state.apiAccess = false;
        const e = await failure(management.enableVnc(kvmId, "Vnc12345"));
        expect(e.kind).toBe("session");
        expect(e.message).toContain("enable API Access in the KVM portal of any of your servers");
        expect(e.message).not.toContain("the e-mail or password was refused");
        expect(sim.calls("set/vnc/enable")).toHaveLength(1);
    });

    test("a refusal of the request itself is not taken for a refused session: sent once, reported as it is", async () => {
        sim.inject({ endpoint: "hooks/set", status: 400, message: "callback URL denied: not reachable" });
        const e = await failure(management.setTrafficHook(kvmId, { callbackUrl: "https://h.example.com", callbackMethod: "post", triggerPercent: 80 }));
        expect(e).toMatchObject({ kind: "refused", endpoint: "hooks/set" });
        expect(e.message).not.toContain("API Access");
        expect(sim.calls("hooks/set")).toHaveLength(1);
    });

    test("hooks/set refused with 401 is never sent a second time, whatever its answer says (a hook may exist)", async () => {
        sim.inject({ endpoint: "hooks/set", status: 401, json: { status: "success", id: 77 } });
        const e = await failure(management.setTrafficHook(kvmId, { callbackUrl: "https://h.example.com", callbackMethod: "post", triggerPercent: 80 }));
        // A refusal by a management host is of the session (the account's password never reaches it), never "nothing happened".
        expect(e).toMatchObject({ kind: "session", endpoint: "hooks/set" });
        expect(sim.calls("hooks/set")).toHaveLength(1);
        expect(nothingHappened(e)).toBe(false);
    });

    const ISO_EXPIRY = "2031-01-12T15:30:00Z";
    test.each([
        ["absent", undefined, undefined, ""],
        ["an ISO date (as the vendor's pages show)", ISO_EXPIRY, Date.parse(ISO_EXPIRY) / 1000, ISO_EXPIRY],
        ["a numeric string", "1790000000", 1790000000, "1790000000"],
    ])("valid_until %s in get/auth: read as the expiry, sent back exactly as EDIS wrote it", async (_case, given, expiry, sent) => {
        const rewritten = await startSimulator({
            provisioningDelayMs: 0,
            onAnswer: (answer) => {
                if (answer.endpoint !== "get/auth") return;
                for (const entry of Object.values((answer.body as { data: Record<string, Record<string, unknown>> }).data)) {
                    if (given === undefined) delete entry.valid_until;
                    else entry.valid_until = given;
                }
            },
        });
        try {
            const rewrittenClient = clientFor(rewritten);
            const ids = await orderProvisioned(rewrittenClient);
            const [session] = (await rewrittenClient.getAuth(ids.kvmId)).sessions;
            expect(session.validUntil).toBe(expiry);
            rewritten.clearLog();
            // The simulator binds signatures to its own valid_until, so it refuses these; what matters is what was sent.
            await failure(new ManagementClient(rewrittenClient, { urlTemplate: rewritten.managementUrl }).getPower(ids.kvmId));
            expect(rewritten.calls("get/power").map((c) => c.fields.valid_until)).toEqual([sent, sent]);
        } finally {
            await rewritten.stop();
        }
    });

    test("a KVM without a session entry is refused by get/auth", async () => {
        expect(await failure(management.getPower("kvm_999_999"))).toMatchObject({ endpoint: "get/auth", kind: "refused" });
    });

    test("an api_host that is not a host name is refused before anything is sent", async () => {
        sim.account.state.services[0].apiHost = "evil.example.com/steal?x=";
        expect(await failure(management.getPower(kvmId))).toMatchObject({ kind: "not_sent" });
        expect(sim.calls("get/power")).toHaveLength(0);
    });
});

describe("retries: reads and harmless writes only", () => {
    test.each([
        ["get/power", () => management.getPower(kvmId), 2],
        ["set/poweroff", () => management.setPower(kvmId, "off"), 2],
        ["set/vnc/disable", () => management.disableVnc(kvmId), 2],
        ["set/ptr", () => management.setPtr(kvmId, { [server().ips![0]]: "a.example.com" }), 2],
        ["set/vnc/enable", () => management.enableVnc(kvmId, "Abc12345"), 1],
        ["hooks/set", () => management.setTrafficHook(kvmId, { callbackUrl: "https://h.example.com", callbackMethod: "get", triggerPercent: 50 }), 1],
    ] as const)("%s after a 503: sent as often as its retry rule allows", async (endpoint, call, calls) => {
        sim.inject({ endpoint, status: 503 });
        if (calls === 1) expect(await failure(call())).toMatchObject({ kind: "server_error", endpoint });
        else await call();
        expect(sim.calls(endpoint)).toHaveLength(calls);
    });
});

describe("secrets", () => {
    test("a server that echoes the VNC password, the callback password or the signature has its message withheld", async () => {
        await management.getPower(kvmId);
        const [signature] = [...sim.account.issuedSignatures];
        sim.inject({ endpoint: "set/vnc/enable", status: 400, message: `bad vnc_pw=Zz99Yy88 with key ${signature}` });
        const vnc = await failure(management.enableVnc(kvmId, "Zz99Yy88"));
        expect(vnc.message).toMatch(/^EDIS set\/vnc\/enable: refused \(HTTP 400\); server said: \[withheld: .* \(HTTP 400, \d+ bytes\)\]$/);
        sim.inject({ endpoint: "hooks/set", status: 400, message: "callback_pw=s3cr%21t refused" });
        const hook = await failure(
            management.setTrafficHook(kvmId, { callbackUrl: "https://h.example.com", callbackMethod: "post", triggerPercent: 80, callbackPassword: "s3cr!t" }),
        );
        expect(hook.message).toContain("[withheld: ");
        expect(hook.message).not.toContain("s3cr");
        expect(JSON.stringify(sim.log)).not.toMatch(/Zz99Yy88|s3cr!t/);
        expect(retryLog.join("\n")).not.toContain(signature);
    });
});
