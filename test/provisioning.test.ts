// The provisioning wait on an injected clock (provider/clock.ts): minutes of EDIS's time in milliseconds of the test's.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "./support/clock";
import { resolveConfig } from "../provider/config";
import { KvmServerOutputs } from "../provider/kvm/inputs";
import { PROGRESS_EVERY_MS, createServer, resumeServer } from "../provider/kvm/orderFlow";
import { createContext } from "../provider/runtime";
import { EdisSimulator } from "../simulator/server";
import { clientFor, startSimulator } from "./support/sim";
import { createServer as createNetServer, AddressInfo } from "node:net";
import { watchEngine } from "../provider/engineLog";

let sim: EdisSimulator;
afterEach(() => sim.stop());

/** EDIS answers "not provisioned yet" `polls` times, then names the KVM; `cancellation` aborts at the first progress line. */
async function waitFor(polls: number, limitSeconds: number, cancellation?: AbortController) {
    sim = await startSimulator({ provisioningDelayMs: 0, provisioningPolls: polls, kvmIdNotYet: "error" });
    const config = { ...sim.stackConfig(), "edis:provisioningPollSeconds": "5", "edis:provisioningTimeoutSeconds": String(limitSeconds), "edis:journalUrl": `file://${mkdtempSync(join(tmpdir(), "edis-journal-"))}` };
    const clock = new ManualClock();
    const lines: Array<{ at: number; line: string }> = [];
    const log = (line: string) => lines.push({ at: clock.now(), line }) && line.startsWith("waiting for") && cancellation?.abort();
    const ctx = createContext(resolveConfig((key) => config[`edis:${key}` as keyof typeof config]), { clock, log, cancelled: cancellation?.signal });
    const order = await ctx.client.addOrder({ billingCycle: "monthly", paymentMethod: "credit", applyCredit: true, items: [{ pid: 101, os: 1012, hostname: "slow.example.com" }] });
    const serviceId = order.serviceIds[0];
    const outs: KvmServerOutputs = { planId: 101, osId: 1012, hostname: "slow.example.com", billingCycle: "monthly", applyCredit: true, serviceId, invoicePaid: true };
    const started = clock.now();
    const result = await resumeServer(ctx, outs).catch((e: Error) => e);
    return { ctx, serviceId, clock, started, result, progress: lines.filter((l) => l.line.startsWith("waiting for slow.example.com")) };
}

test("a long wait says where it is at least every 30 s: elapsed time, the limit, polls and what EDIS last said", async () => {
    const { clock, started, result, progress } = await waitFor(40, 1200);
    expect(result).toMatchObject({ kvmId: expect.stringMatching(/^kvm_/) });
    // The pauses the code asked for: 5 s, growing by half, at most 30 s.
    expect(clock.sleeps.slice(0, 4)).toEqual([5000, 7500, 11250, 16875]);
    expect(Math.max(...clock.sleeps)).toBe(30_000);
    const waited = clock.now() - started;
    expect(waited).toBeGreaterThan(10 * 60_000);
    // From the first "not yet" to the KVM, no stretch of more than 30 s of EDIS's time without a line.
    const times = [...progress.map((p) => p.at), clock.now()];
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeLessThanOrEqual(PROGRESS_EVERY_MS);
    expect(progress[0].line).toMatch(/: 0 s of 1200 s, 1 poll; EDIS last said: .+/);
    const last = progress[progress.length - 1].line;
    expect(last).toMatch(/: \d+ s of 1200 s, \d+ polls; EDIS last said: EDIS get\/kvmid: /);
});

test("at the limit the error gives the time, the polls and EDIS's last answer, and keeps the service id", async () => {
    const { clock, started, result } = await waitFor(1000, 120);
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toMatch(/has no KVM after 120 s and \d+ polls \(last answer: EDIS get\/kvmid: .+\)/);
    expect(result).toMatchObject({ id: expect.any(String) });
    expect(clock.now() - started).toBe(120_000);
});

test("a cancelled deployment (Ctrl-C) stops the wait at the next pause, keeping the service id; an order not yet sent is not sent", async () => {
    // The engine's Cancel arrives while the wait says where it is.
    const { ctx, serviceId, result } = await waitFor(1000, 1200, new AbortController());
    expect((result as Error).message).toContain(`the deployment was cancelled while slow.example.com (service ${serviceId}`);
    expect(result).toMatchObject({ id: String(serviceId) });
    expect(sim.calls("get/kvmid")).toHaveLength(1);

    const refused = await createServer(ctx, { planId: 101, osId: 1012, hostname: "late.example.com", billingCycle: "monthly", applyCredit: true, paymentMethod: "credit" }).catch((e: Error) => e);
    expect((refused as Error).message).toBe("the deployment was cancelled before add/order was sent: nothing was sent");
    expect(sim.calls("add/order")).toHaveLength(1);
});

test("a cancelled deployment waits for no retry: a read answered 503 is not asked again once the deployment is cancelled", async () => {
    sim = await startSimulator({ faults: [{ endpoint: "get/locations", status: 503, times: 5 }] });
    const cancellation = new AbortController();
    // The engine's Cancel arrives while the client waits to ask again.
    const client = clientFor(sim, { clock: new ManualClock(), cancelled: cancellation.signal, log: (line) => line.includes("retry 1") && cancellation.abort() });
    const failed = await client.getLocations().catch((e: Error) => e);
    expect(failed).toMatchObject({ kind: "server_error", status: 503 });
    expect(sim.calls("get/locations")).toHaveLength(1);
});

test("an engine whose address stops answering cancels the core: its waits end and nothing more is sent", async () => {
    const engine = createNetServer().listen(0, "127.0.0.1");
    await new Promise((r) => engine.once("listening", r));
    const core = { cancel: jest.fn() };
    watchEngine(core, `127.0.0.1:${(engine.address() as AddressInfo).port}`, 20);
    await new Promise((r) => setTimeout(r, 200));
    expect(core.cancel).not.toHaveBeenCalled();
    await new Promise((r) => engine.close(r));
    // Two refused probes 20 ms apart; the loop is only a hang guard for a machine that runs the timers late.
    for (let i = 0; i < 1500 && core.cancel.mock.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(core.cancel).toHaveBeenCalledTimes(1);
});
