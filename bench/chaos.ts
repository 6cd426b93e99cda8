/**
 * `npm run chaos -- --runs N --seed S [--parallel 2] [--batch] [--shared-journal | --fresh-runners]`: each run deploys
 * a small fleet through the real `pulumi` CLI with random faults and a killed provider host or deployment, recovers as
 * a user would (acting only on what the errors say), destroys, and checks the invariants below. `--shared-journal`:
 * recovery on fresh runners with the journal in S3; `--fresh-runners`: on their disk, the control.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { EdisSimulator, InjectedFault } from "../simulator/server";
import { CliResult, CliStack, credentialIn } from "../test/cli/pulumi";
import { runNamedCommand } from "../test/support/journalCommand";
import { S3Server, startS3Server } from "../test/support/s3Server";
import { PACKAGE_ROOT, stackConfigFor } from "../test/support/workspace";

const PROGRAM = join(PACKAGE_ROOT, "test", "programs", "servers");
const ENDPOINTS = ["get/locations", "get/products", "get/paymentmethods", "add/order", "get/kvmid", "get/serviceid", "get/auth", "cancel/product", "get/power", "hooks/set", "hooks/del", "*"];
const says = (message: string, status = "error") => ({ json: { status, message } });
const FAULTS: Array<{ name: string; fault: Omit<InjectedFault, "endpoint" | "times"> }> = [
    { name: "429", fault: { status: 429, retryAfter: 0 } },
    { name: "500", fault: { status: 500 } },
    { name: "503", fault: { status: 503 } },
    { name: "502-html", fault: { status: 502, body: "html" } },
    { name: "404-html", fault: { status: 404, body: "html" } },
    { name: "drop-before", fault: { drop: "before" } },
    { name: "drop-after", fault: { drop: "after" } },
    { name: "bad-json", fault: { body: "badjson" } },
    { name: "empty", fault: { body: "empty" } },
    { name: "refused", fault: { body: "status-error", message: "Request could not be processed" } },
    // Answers whose words must be read for their meaning (provider/client/answers.ts).
    { name: "later-backend-not-found", fault: says("Service temporarily unavailable (backend not found), please try again later") },
    { name: "minimum-term", fault: says("Service cannot be terminated before the end of its minimum contract term") },
    { name: "not-yet-cancelled", fault: says("The service is not yet cancelled", "Error") },
    { name: "page-not-found", fault: { status: 404, json: { error: "Not Found" } } },
    // Paid writes answered in shapes the specification does not show: the state change happens.
    { name: "failed-with-ids", fault: { rewrite: (a) => ({ ...a, status: "failed" }) } },
    { name: "unparsable-field", fault: { rewrite: (a) => ({ ...a, invoicepaid: null, invoiceid: "n/a" }) } },
    { name: "status-case", fault: { rewrite: (a) => ({ ...a, status: "SUCCESS" }) } },
    { name: "extra-service-id", fault: { rewrite: (a) => ({ ...a, serviceids: typeof a.serviceids === "string" ? `${a.serviceids},999${a.orderid ?? 1}` : a.serviceids }) } },
];
const CRASHES = ["none", "none", "host", "engine"] as const;
/** On fresh runners the crash that matters is after add/order answered (a cancelled CI job). */
const CRASHES_ON_FRESH_RUNNERS = ["none", "host", "engine", "host-after-order", "engine-after-order", "engine-after-order"] as const;
/** Well over the request time limit the runs set (edis:requestTimeoutSeconds 2), so that a slowed call times out on a busy machine too. */
const SLOW_MS = 4_000;

export type RunReport = Awaited<ReturnType<typeof chaosRun>>;

/** A small, seedable generator (mulberry32), so that a failing run can be replayed from its seed. */
function random(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

export interface Runners {
    /** Every recovery up and the destroy on a fresh program directory. */
    fresh: boolean;
    /** The S3 server holding the journal (a bucket per run), or none: the journal on the runner's disk. */
    s3?: S3Server;
}

interface Seen {
    ok: boolean;
    errors: string[];
    output: string;
}

function seen(r: CliResult): Seen {
    const errors = r.events.flatMap((e) => (e.diagnosticEvent?.urn && e.diagnosticEvent.severity === "error" ? [e.diagnosticEvent.message] : []));
    return { ok: r.code === 0, errors: r.code === 0 ? [] : errors.length ? errors : [r.output], output: r.output };
}

export async function chaosRun(seed: number, index: number, batch = false, runners: Runners = { fresh: false }) {
    const started = Date.now();
    const rnd = random(seed * 1_000_003 + index);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
    const email = `chaos+${index}@example.com`;
    const password = `Ch&os p+ss/wörd=${index}%`;
    const sim = await EdisSimulator.start({ email, password, provisioningDelayMs: 50 + Math.floor(rnd() * 400) });
    const servers: Record<string, Record<string, unknown>> = {};
    const count = 1 + Math.floor(rnd() * 3);
    for (let i = 0; i < count; i++) {
        servers[`c${i}`] = { planId: pick([101, 102, 202]), osId: 1012, hostname: `c${i}-r${index}.chaos.example.com`, cancellationType: pick(["Immediate", "End of Billing Period"]) };
    }
    const alerts: Record<string, number> = {};
    for (const name of Object.keys(servers)) if (rnd() < 0.5) alerts[name] = 50 + Math.floor(rnd() * 50);
    // Two components that each hold a server named "server": equal names, two resources, two orders.
    const components: Record<string, Record<string, Record<string, unknown>>> = {};
    if (rnd() < 0.3) {
        for (const tier of ["WebTier", "DbTier"]) {
            components[tier] = { server: { planId: 101, osId: 1012, hostname: `${tier}-r${index}.chaos.example.com`, cancellationType: "Immediate" } };
        }
    }
    const first = await CliStack.create({
        programDir: PROGRAM,
        config: {
            ...stackConfigFor(sim),
            "edis:provisioningTimeoutSeconds": "8",
            "edis:requestTimeoutSeconds": "2",
            "edis:batchOrders": String(batch),
            "edis-servers:servers": JSON.stringify(servers),
            "edis-servers:alerts": JSON.stringify(alerts),
            "edis-servers:components": JSON.stringify(components),
            ...(runners.s3 ? { "edis:journalUrl": runners.s3.journalUrl(await runners.s3.bucket()) } : {}),
        },
        secretKeys: ["edis:email", "edis:password"],
        env: runners.s3?.env,
    });
    const stacks = [first];
    let stack = first;
    // A fresh runner: a new directory that checks out the stack (its config file), on the first runner's backend.
    const nextRunner = async () => {
        if (!runners.fresh) return;
        stack = await CliStack.create({ programDir: PROGRAM, checkoutOf: stack, env: { ...runners.s3?.env, PULUMI_BACKEND_URL: `file://${first.backendDir}` } });
        stacks.push(stack);
    };
    // components: two components each holding a server of the same name; resumed: servers a recovery run took from the journal.
    const report = { index, servers: count + Object.keys(components).length, faults: [] as string[], crash: pick<string>(runners.fresh ? CRASHES_ON_FRESH_RUNNERS : CRASHES), recoveryUps: 0, adopted: 0, forgotten: 0, orders: 0, alerts: Object.keys(alerts).length, hookCalls: 0, violations: [] as string[], durationMs: 0, components: Object.keys(components).length > 0, resumed: 0 };
    const results: Seen[] = [];
    // A command, run as a user runs it: a stack a killed command left locked is unlocked first (`pulumi cancel`).
    const command = async (run: () => Promise<CliResult>): Promise<Seen> => {
        let r = await run();
        if (r.output.includes("the stack is currently locked")) {
            await stack.run(["cancel", "--yes"]);
            r = await run();
        }
        results.push(seen(r));
        return results[results.length - 1];
    };
    try {
        // 1. The faulty up.
        for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
            const endpoint = pick(ENDPOINTS);
            if (rnd() < 0.15) {
                sim.latencyByEndpoint[endpoint === "*" ? "get/kvmid" : endpoint] = SLOW_MS;
                report.faults.push(`slow ${endpoint}`);
                continue;
            }
            if (rnd() < 0.1) {
                // A server that echoes the request in its own spelling: the e-mail in capitals, the password through htmlentities().
                const message = `Login ${email.toUpperCase()} / ${password.replace(/ö/g, "&ouml;").replace(/&(?!ouml;)/g, "&amp;")} was not accepted`;
                sim.inject({ endpoint, times: 1, ...says(message) });
                report.faults.push(`echo ${endpoint}`);
                continue;
            }
            const { name, fault } = pick(FAULTS);
            const times = 1 + Math.floor(rnd() * 3);
            sim.inject({ endpoint, times, ...fault });
            report.faults.push(`${name} ${endpoint} x${times}`);
        }
        // The kill of the provider host or the whole deployment, as a chosen call reaches EDIS (no clock decides it);
        // "-after-order" at the first provisioning poll after add/order answered; a batch around its batched order.
        const at = report.crash.endsWith("-after-order") ? "get/kvmid" : pick(batch ? ["add/order", "get/kvmid"] : ["add/order", "get/kvmid", "get/auth", "get/products", "hooks/set"]);
        if (report.crash !== "none") {
            report.crash += ` at ${at}`;
            delete sim.latencyByEndpoint[at];
            sim.holdByEndpoint[at] = async () => {
                if (report.crash.includes("-after-order") && !sim.log.some((e) => e.endpoint === "add/order" && e.httpStatus === 200)) return;
                delete sim.holdByEndpoint[at];
                const killed = report.crash.startsWith("engine") ? stack.crash() : stack.killProviderHosts();
                if (killed > 0) report.crash += " (killed)";
            };
        }
        await command(() => stack.up());
        delete sim.holdByEndpoint[at];
        sim.clearFaults();
        for (const key of Object.keys(sim.latencyByEndpoint)) delete sim.latencyByEndpoint[key];

        // A resource renamed with an alias before the recovery (what a refactoring does): its journal entries follow it.
        const renamed = Object.keys(servers).find((n) => !alerts[n] && rnd() < 0.3);
        if (renamed) {
            servers[`${renamed}-renamed`] = servers[renamed];
            delete servers[renamed];
            await stack.setConfig({ "edis-servers:servers": JSON.stringify(servers), "edis-servers:options": JSON.stringify({ [`${renamed}-renamed`]: { aliases: [{ name: renamed }] } }) });
            report.faults.push(`renamed ${renamed}`);
        }

        // 2. Recovery, acting only on what the errors say.
        const declared = () => ({ ...servers, ...Object.fromEntries(Object.entries(components).map(([tier, s]) => [`${tier}/server`, s.server])) });
        // A batched order is forgotten once, by the one command every member's error prints.
        const forgottenBatches = new Set<string>();
        for (let attempt = 0; attempt < 8; attempt++) {
            report.recoveryUps++;
            await nextRunner();
            const up = await command(() => stack.up());
            report.resumed += up.output.split("it is in the order journal, so it is waited for, not ordered again").length - 1;
            if (up.ok) break;
            for (const [name, args] of Object.entries(declared())) {
                const error = up.errors.find((e) => e.includes(`the order for ${String(args.hostname)} may or may not have been made`));
                if (!error) continue;
                // The user looks in the client area for a server of that host name.
                const service = sim.account.state.services.find((s) => s.hostname === args.hostname && s.status !== "Cancelled");
                if (!service) {
                    const batchId = /orders forget --batch ([0-9a-f]+)/.exec(error)?.[1];
                    if (batchId && forgottenBatches.has(batchId)) continue;
                    if (batchId) forgottenBatches.add(batchId);
                    await runNamedCommand(error, "forget", undefined, runners.s3?.env);
                    report.forgotten++;
                    continue;
                }
                for (let i = 0; i < 100 && !service.kvmId; i++) {
                    sim.account.advance();
                    await new Promise((r) => setTimeout(r, 50));
                }
                if (name.includes("/")) components[name.split("/")[0]].server = { ...args, adoptKvmId: service.kvmId };
                else servers[name] = { ...args, adoptKvmId: service.kvmId };
                await stack.setConfig({ "edis-servers:servers": JSON.stringify(servers), "edis-servers:components": JSON.stringify(components) });
                report.adopted++;
            }
            for (const name of Object.keys(alerts)) {
                const url = `https://hooks.example.com/${name}`;
                const error = up.errors.find((e) => e.includes(`(${url} at `) && e.includes("may or may not have been made"));
                if (!error) continue;
                // The user looks in the KVM portal and removes a hook the lost call may have made, then says so.
                for (const s of sim.account.state.services) s.hooks = s.hooks?.filter((h) => h.url !== url);
                await runNamedCommand(error, "forget", undefined, runners.s3?.env);
                report.forgotten++;
            }
        }
        // Every resource of the checkpoint (by URN: two components each hold a "server"), a delete the engine retries included.
        const resources = (await stack.deployment()).resources ?? [];
        const inState = resources.filter((r) => r.type.endsWith(":KvmServer"));
        const billed = sim.account.state.services.filter((s) => s.status !== "Cancelled" && !s.cancellation);
        report.orders = sim.account.state.orders.length;
        if (!results[results.length - 1].ok) report.violations.push(`recovery did not finish: ${results[results.length - 1].errors.join("; ")}`);
        // Invariant 1: one service per host name at most.
        for (const args of Object.values(declared())) {
            const ordered = sim.account.state.services.filter((s) => s.hostname === args.hostname).length;
            if (ordered > 1) report.violations.push(`${String(args.hostname)} was ordered ${ordered} times`);
        }
        // Invariant 2: everything EDIS bills is in state.
        for (const s of billed) {
            if (!inState.some((r) => r.id === String(s.serviceId))) report.violations.push(`service ${s.serviceId} (${s.hostname}) is billed but not in state`);
        }
        // Invariant 5: the hooks at EDIS are the hooks in state.
        const hooksAtEdis = sim.account.state.services.flatMap((s) => (s.hooks ?? []).map((h) => h.id)).sort();
        const hooksInState = resources.filter((r) => r.type.endsWith(":TrafficAlert")).map((r) => Number(r.outputs?.hookId)).sort();
        if (JSON.stringify(hooksAtEdis) !== JSON.stringify(hooksInState)) {
            report.violations.push(`hooks at EDIS ${JSON.stringify(hooksAtEdis)} are not the hooks in state ${JSON.stringify(hooksInState)}`);
        }
        report.hookCalls = sim.calls("hooks/set").length;

        // 3. Destroy (retried as a user would), then invariants 3 and 6.
        for (let attempt = 0; attempt < 3; attempt++) {
            await nextRunner();
            if ((await command(() => stack.destroy())).ok) break;
        }
        const running = sim.account.state.services.filter((s) => s.status !== "Cancelled" && !s.cancellation);
        for (const s of running) report.violations.push(`service ${s.serviceId} (${s.hostname}) runs without a cancellation after destroy`);
        const leftHooks = sim.account.state.services.flatMap((s) => s.hooks ?? []);
        if (leftHooks.length) report.violations.push(`${leftHooks.length} hook(s) left after destroy`);

        // Invariant 4: no credential anywhere the user or the state can see (every runner's backend files and output).
        const text = [...stacks.flatMap((s) => [s.backendText(), ...s.log])].join("\n");
        const found = credentialIn(text, [password, email, ...sim.account.issuedSignatures]);
        if (found) report.violations.push(`a credential (${found === password ? "the password" : found === email ? "the e-mail" : "a session signature"}) appears in state, errors or the log`);
    } catch (e) {
        report.violations.push(`the run itself failed: ${(e as Error).stack ?? e}`);
    } finally {
        for (const s of stacks) s.dispose();
        await sim.stop();
        report.durationMs = Date.now() - started;
    }
    return report;
}

export async function runCampaign(options: {
    runs: number;
    seed: number;
    parallel: number;
    batch?: boolean;
    /** "shared": fresh runners, the journal in S3; "fresh": fresh runners, the journal on their disk. */
    runners?: "same" | "fresh" | "shared";
    onRun?: (r: RunReport) => void;
}): Promise<RunReport[]> {
    const reports: RunReport[] = [];
    const s3 = options.runners === "shared" ? await startS3Server() : undefined;
    // The `orders` commands the recovery runs, as the user runs them on the runner: with its AWS credentials.
    const savedEnv = { ...process.env };
    if (s3) Object.assign(process.env, s3.env);
    let next = 0;
    const worker = async () => {
        while (next < options.runs) {
            const index = next++;
            const report = await chaosRun(options.seed, index, options.batch, { fresh: options.runners === "fresh" || options.runners === "shared", s3 });
            reports.push(report);
            options.onRun?.(report);
        }
    };
    try {
        await Promise.all(Array.from({ length: Math.max(1, options.parallel) }, worker));
    } finally {
        process.env = savedEnv;
        await s3?.stop();
    }
    return reports.sort((a, b) => a.index - b.index);
}

export function summarize(reports: RunReport[], seed: number, wallMs: number) {
    const count = (f: (r: RunReport) => boolean) => reports.filter(f).length;
    const sum = (f: (r: RunReport) => number) => reports.reduce((n, r) => n + f(r), 0);
    const faults = (kinds: RegExp) => sum((r) => r.faults.filter((f) => kinds.test(f)).length);
    return {
        seed,
        runs: reports.length,
        violations: sum((r) => r.violations.length),
        servers: sum((r) => r.servers),
        faultsInjected: sum((r) => r.faults.length),
        hostKills: count((r) => r.crash.startsWith("host") && r.crash.endsWith("(killed)")),
        engineKills: count((r) => r.crash.startsWith("engine") && r.crash.endsWith("(killed)")),
        engineKillsAfterOrder: count((r) => r.crash.startsWith("engine-after-order") && r.crash.endsWith("(killed)")),
        // Killed while an order was at EDIS or its provisioning was awaited.
        orderKills: count((r) => /at (add\/order|get\/kvmid) \(killed\)$/.test(r.crash)),
        runsNeedingRecovery: count((r) => r.recoveryUps > 1),
        adopted: sum((r) => r.adopted),
        forgotten: sum((r) => r.forgotten),
        orders: sum((r) => r.orders),
        alerts: sum((r) => r.alerts),
        hookCalls: sum((r) => r.hookCalls),
        meaningFaults: faults(/^(later-backend|minimum-term|not-yet-cancelled|page-not-found|echo)/),
        paidAnswerFaults: faults(/^(failed-with-ids|unparsable-field|status-case|extra-service-id)/),
        unconfirmedCancels: faults(/^(not-yet-cancelled|minimum-term) cancel\/product/),
        renames: count((r) => r.faults.some((f) => f.startsWith("renamed "))),
        componentRuns: count((r) => r.components),
        resumedFromJournal: sum((r) => r.resumed),
        wallSeconds: Math.round(wallMs / 100) / 10,
    };
}

async function main(argv: string[]): Promise<number> {
    const { values } = parseArgs({
        args: argv,
        options: { runs: { type: "string" }, seed: { type: "string" }, parallel: { type: "string" }, batch: { type: "boolean" }, "shared-journal": { type: "boolean" }, "fresh-runners": { type: "boolean" } },
    });
    const runs = Number(values.runs ?? 20);
    const seed = Number(values.seed ?? 1);
    const parallel = Number(values.parallel ?? 2);
    if (![runs, seed, parallel].every((n) => Number.isInteger(n) && n >= 0) || runs < 1 || parallel < 1) {
        console.error("usage: npm run chaos -- [--runs N] [--seed S] [--parallel P] [--batch] [--shared-journal | --fresh-runners]");
        return 2;
    }
    const started = Date.now();
    const reports = await runCampaign({
        runs,
        seed,
        parallel,
        batch: values.batch,
        runners: values["shared-journal"] ? "shared" : values["fresh-runners"] ? "fresh" : "same",
        onRun: (r) =>
            console.log(
                `run ${r.index}: ${r.servers} server(s), faults [${r.faults.join(", ")}], crash ${r.crash}, ${r.recoveryUps} recovery up(s)` +
                    `${r.adopted ? `, ${r.adopted} adopted` : ""}${r.forgotten ? `, ${r.forgotten} forgotten` : ""}, ${r.orders} order(s), ` +
                    `${r.alerts} alert(s) with ${r.hookCalls} hooks/set, ` +
                    `${(r.durationMs / 1000).toFixed(1)} s${r.violations.length ? `\n  VIOLATIONS: ${r.violations.join("\n  ")}` : ""}`,
            ),
    });
    const summary = summarize(reports, seed, Date.now() - started);
    const dir = join(PACKAGE_ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const variant = `${values.batch ? "-batch" : ""}${values["shared-journal"] ? "-shared-journal" : values["fresh-runners"] ? "-fresh-runners" : ""}`;
    writeFileSync(join(dir, `chaos-seed${seed}-runs${runs}${variant}.json`), JSON.stringify({ summary, reports }, null, 2));
    console.log(JSON.stringify(summary));
    return summary.violations === 0 ? 0 : 1;
}

if (require.main === module) {
    main(process.argv.slice(2)).then((code) => process.exit(code));
}
