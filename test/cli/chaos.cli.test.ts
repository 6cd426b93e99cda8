// The fault campaign (bench/chaos.ts) via the real CLI, short and seeded; `npm run chaos -- --runs 500`: the long one.
import { runCampaign, summarize } from "../../bench/chaos";

// Seed 445 draws every case the assertions need: kills (one while add/order is at EDIS), meaning and shape faults, a
// rename, components holding a "server"; batched with the journal in S3, kills after the batched order answered.
const SEED = 445;

/** A short campaign of the seed: its summary, once no run broke an invariant (violations printed first and short: CI shows a failure's diff cut in the middle). */
async function campaign(label: string, options: Omit<Parameters<typeof runCampaign>[0], "seed" | "parallel">): Promise<ReturnType<typeof summarize>> {
    const started = Date.now();
    const reports = await runCampaign({ seed: SEED, parallel: 2, ...options });
    const summary = summarize(reports, SEED, Date.now() - started);
    console.log(`${label}: ${JSON.stringify(summary)}`);
    const violations = reports.flatMap((r) => r.violations.map((v) => `run ${r.index}: ${v}`));
    if (violations.length) console.log(`chaos violations:\n${violations.map((v) => v.slice(0, 800)).join("\n")}`);
    expect(violations).toEqual([]);
    expect(summary.runs).toBe(options.runs);
    return summary;
}

test("4 runs: nothing ordered or hooked twice, nothing billed outside state, nothing left running, no secret seen", async () => {
    const summary = await campaign("chaos", { runs: 4 });
    expect(summary.engineKills).toBeGreaterThanOrEqual(1);
    expect(summary.orderKills).toBeGreaterThanOrEqual(1);
    expect(summary.faultsInjected).toBeGreaterThanOrEqual(10);
    expect(summary.orders).toBe(summary.servers);
    // Each alert ended with one hook (invariant 5).
    expect(summary.alerts).toBeGreaterThan(0);
    // Run 3 answers cancel/product "not yet cancelled": the server stays in state until EDIS confirms (invariant 3).
    expect(Math.min(summary.meaningFaults, summary.paidAnswerFaults, summary.unconfirmedCancels, summary.renames, summary.componentRuns)).toBeGreaterThan(0);
});

test("4 runs with edis:batchOrders on fresh runners with the journal in S3, killed after the batched order answered: each run's servers ordered together, every recovery run and the destroy on a new directory, the same invariants", async () => {
    const summary = await campaign("chaos (batched orders, fresh runners, shared journal)", { runs: 4, batch: true, runners: "shared" });
    expect(summary.engineKillsAfterOrder).toBeGreaterThanOrEqual(1);
    expect(summary.orderKills).toBeGreaterThanOrEqual(2);
    // Fewer orders than servers: a run's servers share orders (and none was ordered twice: invariant 1).
    expect(summary.orders).toBeLessThan(summary.servers);
    // Not vacuous: a killed run's order was found in the shared store by a runner that never saw the first one's disk.
    expect(summary.resumedFromJournal).toBeGreaterThan(0);
});
