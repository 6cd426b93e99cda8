import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EdisClient } from "../provider/client/client";
import { RAW_ANSWERS_VARIABLE, rawAnswersFile } from "../provider/client/rawAnswers";
import { EdisSimulator } from "../simulator/server";
import { clientFor, failureOf as failure, orderProvisioned, startSimulator } from "./support/sim";
import { ManualClock } from "./support/clock";

// Every character that breaks naive form encoding.
const PASSWORD = "p+a&s=s%20 wörd ü&pw=x";
const EMAIL = "ops+edis@example.com";

let sim: EdisSimulator;
let client: EdisClient;
let retryLog: string[];

beforeEach(async () => {
    sim = await startSimulator({ email: EMAIL, password: PASSWORD });
    retryLog = [];
    client = clientFor(sim, { log: (line) => retryLog.push(line) });
});
afterEach(() => sim.stop());

const ORDER = { billingCycle: "monthly" as const, paymentMethod: "paypal", applyCredit: true, items: [{ pid: 101, os: 1012, hostname: "a" }] };

describe("each endpoint against the simulator", () => {
    test("add/upgrade is sent as JSON with the hyphenated half-year cycle", async () => {
        const { kvmId } = await orderProvisioned(client);
        const result = await client.addUpgrade({ kvmId, newPid: 102, newBillingCycle: "semiannually", newPaymentMethod: "paypal" });
        expect(result).toMatchObject({ serviceId: expect.any(Number) });
        expect(sim.calls("add/upgrade")[0].fields).toMatchObject({ newbillingcycle: "semi-annually", newpid: 102, pw: "***" });
    });

    test("cancel/product sends both ids and the type", async () => {
        const { serviceId, kvmId } = await orderProvisioned(client);
        expect(await client.cancelProduct({ serviceId, kvmId, type: "End of Billing Period" })).toMatchObject({ serviceId });
        expect(sim.calls("cancel/product")[0].fields).toMatchObject({ serviceid: String(serviceId), kvmid: kvmId, type: "End of Billing Period" });
    });
});

describe("error kinds", () => {
    test("credentials: a wrong password is refused, and is not retried", async () => {
        const wrong = clientFor(sim, { password: "not-it" });
        const e = await failure(wrong.getLocations());
        expect(e).toMatchObject({ kind: "credentials", status: 401, endpoint: "get/locations" });
        // What to do comes right after what failed; why a changed password may still fail comes last.
        expect(e.message).toMatch(/^EDIS get\/locations: the e-mail or password was refused \(HTTP 401\): check config `edis:email` and `edis:password` \(or EDIS_EMAIL and EDIS_PASSWORD\); /);
        expect(e.message).toMatch(/; after changing them, record them with one `pulumi up --refresh=false` \(preview it first\): refresh, destroy and the refresh before up and preview use the credentials recorded at the last up$/);
        expect(e.message.length).toBeLessThan(500);
        expect(sim.calls("get/locations")).toHaveLength(1);
    });

    test("rate_limited and server_error after the retries run out, with the attempt count", async () => {
        sim.inject({ endpoint: "get/locations", status: 429, times: 10 });
        const limited = await failure(client.getLocations());
        expect(limited).toMatchObject({ kind: "rate_limited", status: 429, attempts: 4 });
        expect(limited.message).toContain("after 4 attempts");
        sim.clearFaults();
        sim.inject({ endpoint: "get/billingcycles", status: 500, times: 10 });
        expect(await failure(client.getBillingCycles())).toMatchObject({ kind: "server_error", status: 500 });
        expect(sim.calls("get/billingcycles")).toHaveLength(4);
    });

    test("an answer larger than 10 MiB is refused as unexpected, not buffered", async () => {
        sim.inject({ endpoint: "get/locations", json: { status: "success", locations: {}, padding: "x".repeat(11 * 1024 * 1024) } });
        const e = await failure(client.getLocations());
        expect(e.message).toBe("EDIS get/locations: unexpected answer; the answer was larger than 10 MiB");
    });

});

describe("retry policy", () => {
    test("read-only calls are retried with backoff on 503 and succeed", async () => {
        sim.inject({ endpoint: "get/locations", status: 503, times: 2 });
        expect((await client.getLocations()).locations).toHaveLength(4);
        expect(sim.calls("get/locations").map((c) => c.httpStatus)).toEqual([503, 503, 200]);
        expect(retryLog).toHaveLength(2);
        expect(retryLog[0]).toMatch(/get\/locations: server_error \(HTTP 503\), retry 1 of 3 in \d+ ms/);
    });

    test("Retry-After is honoured: the back-off waits what the server asked, on the client's clock", async () => {
        const clock = new ManualClock();
        const timed = clientFor(sim, { clock, log: (l) => retryLog.push(l) });
        sim.inject({ endpoint: "get/auth", status: 429, retryAfter: 7 });
        await timed.getAuth();
        expect(clock.sleeps).toEqual([7000]);
        expect(retryLog[0]).toContain("in 7000 ms");
        // A Retry-After beyond the policy's cap waits the cap, not what a broken header says.
        sim.inject({ endpoint: "get/auth", status: 429, retryAfter: 86_400 });
        await timed.getAuth();
        expect(clock.sleeps).toEqual([7000, 60_000]);
    });

    test.each([
        ["add/order", { drop: "after" }],
        ["add/order", { status: 500 }],
        ["add/order", { status: 503 }],
        ["add/upgrade", { drop: "after" }],
        ["add/upgrade", { status: 500 }],
        ["add/upgrade", { status: 503 }],
    ] as const)("%s failing with %j is sent once and never retried", async (endpoint, fault) => {
        const { kvmId } = endpoint === "add/upgrade" ? await orderProvisioned(client) : { kvmId: "" };
        sim.inject({ endpoint, ...fault, times: 5 });
        await failure(
            endpoint === "add/order"
                ? client.addOrder(ORDER)
                : client.addUpgrade({ kvmId, newPid: 102, newBillingCycle: "monthly", newPaymentMethod: "paypal" }),
        );
        expect(sim.calls(endpoint)).toHaveLength(1);
        expect(retryLog).toEqual([]);
    });

    test("add/order answered failed (out of stock) carries the order id", async () => {
        sim.behaviour.outOfStock = [101];
        const e = await failure(client.addOrder(ORDER));
        expect(e.orderId).toBe(sim.account.state.orders[0].orderId);
        expect(e.message).toContain(`order ${e.orderId}`);
        expect(e.message).toContain("so EDIS may have made something that is billed");
    });
});

describe("secrets", () => {
    test("a refusal whose status field echoes the request is withheld", async () => {
        sim.inject({ endpoint: "get/locations", json: { status: `denied: email=${EMAIL}&pw=${encodeURIComponent(PASSWORD).toLowerCase()}` } });
        const e = await failure(client.getLocations());
        expect(e.message).toMatch(/^EDIS get\/locations: refused \(HTTP 200\); status "\[withheld: EDIS's text is not quoted, as it is not plainly words or holds a secret\]"$/);
    });

    test("with EDIS_RAW_ANSWERS_FILE (an absolute path outside the program's directory) a withheld answer is kept there as it came, mode 0600; another path gets nothing", async () => {
        const dir = mkdtempSync(join(tmpdir(), "edis-raw-"));
        const file = join(dir, "answers.log");
        process.env[RAW_ANSWERS_VARIABLE] = file;
        // There already, readable by others: made owner-only before the answer is written.
        writeFileSync(file, "", { mode: 0o644 });
        try {
            sim.inject({ endpoint: "get/locations", status: 400, message: `bad request body pw=${PASSWORD}` });
            const e = await failure(client.getLocations());
            expect(e.message).toContain("[withheld: ");
            expect(e.message).not.toContain(PASSWORD);
            const kept = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
            expect(kept).toEqual([expect.objectContaining({ endpoint: "get/locations", status: 400, answer: expect.stringContaining(`pw=${PASSWORD}`) })]);
            expect(statSync(file).mode & 0o777).toBe(0o600);
            expect(rawAnswersFile({ [RAW_ANSWERS_VARIABLE]: join(process.cwd(), "answers.log") })).toBeUndefined();
            expect(rawAnswersFile({ [RAW_ANSWERS_VARIABLE]: "answers.log" })).toBeUndefined();
            // A name that starts with two dots is inside the program's directory all the same.
            expect(rawAnswersFile({ [RAW_ANSWERS_VARIABLE]: join(process.cwd(), "..answers.log") })).toBeUndefined();
            expect(rawAnswersFile({ [RAW_ANSWERS_VARIABLE]: file }, "/elsewhere")).toBe(file);
        } finally {
            delete process.env[RAW_ANSWERS_VARIABLE];
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
