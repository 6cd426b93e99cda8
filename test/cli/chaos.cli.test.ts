/**
 * The randomized fault campaign (bench/chaos.ts) through the real `pulumi` CLI, short and with a fixed seed: random
 * faults on every endpoint (the Management API's too), killed provider hosts and killed deployments, each run followed
 * by recovery as a user would do it and a destroy; no run may break an invariant. `npm run chaos -- --runs 500`
 * runs the long campaign.
 */
import { runCampaign, summarize } from "../../bench/chaos";

// Seed 14 draws, among its first 8 runs, killed deployments and hosts, lost answers, answers read for their meaning
// ("not yet cancelled" to a cancel, a minimum contract term, an echo of the credentials), answers in other shapes
// (`failed` with ids, an unparsable field), a rename with an alias, and two components that each hold a "server".
const SEED = 14;

/** A short campaign of seed 14: its summary, once no run broke an invariant (violations printed first and short: CI shows a failure's diff cut in the middle). */
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

test("8 runs of seed 14: nothing ordered or hooked twice, nothing billed outside state, nothing left running, no secret seen", async () => {
    const summary = await campaign("chaos", { runs: 8 });
    expect(summary.engineKills + summary.hostKills).toBeGreaterThanOrEqual(4);
    expect(summary.faultsInjected).toBeGreaterThanOrEqual(15);
    expect(summary.orders).toBe(summary.servers);
    // Each alert ended with one hook (invariant 5); how many lost answers needed a forget depends on the kills' timing.
    expect(summary.alerts).toBeGreaterThan(0);
    // Run 6 answers cancel/product "not yet cancelled": the server stays in state until EDIS confirms (invariant 3).
    expect(Math.min(summary.meaningFaults, summary.paidAnswerFaults, summary.unconfirmedCancels, summary.renames, summary.componentRuns)).toBeGreaterThan(0);
});

test("3 runs of seed 14 with edis:batchOrders on one runner, the journal on its disk: each killed while its batched order is at EDIS or awaited, the same invariants", async () => {
    const summary = await campaign("chaos (batched orders, one runner)", { runs: 3, batch: true });
    expect(summary.orderKills).toBeGreaterThanOrEqual(2);
    // Fewer orders than servers: a run's servers share orders (and none was ordered twice: invariant 1).
    expect(summary.orders).toBeLessThan(summary.servers);
});

test("4 runs of seed 14 with edis:batchOrders on fresh runners with the journal in S3: each run's servers ordered together, every recovery run and the destroy on a new directory, the same invariants", async () => {
    const summary = await campaign("chaos (batched orders, fresh runners, shared journal)", { runs: 4, batch: true, runners: "shared" });
    expect(summary.faultsInjected).toBeGreaterThanOrEqual(8);
    expect(summary.orderKills).toBeGreaterThanOrEqual(3);
    // Fewer orders than servers: a run's servers share orders (and none was ordered twice: invariant 1).
    expect(summary.orders).toBeLessThan(summary.servers);
    // Not vacuous: a killed run's order was found in the shared store by a runner that never saw the first one's disk,
    // resumed when its answer had been recorded, else blocking until adopted.
    expect(summary.resumedFromJournal + summary.adopted).toBeGreaterThan(0);
});
