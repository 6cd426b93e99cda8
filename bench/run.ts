/**
 * `npm run bench [--sizes 1,50,200,1000] [--latency-ms 50] [--parallelism 16] [--no-batch] [--journal s3]`: fleets of N
 * servers through the real `pulumi` CLI against the simulator, with and without `edis:batchOrders`: wall time and API
 * calls per command, under bench/results/; fails when a `targets` call count is missed. `--journal s3` also counts the
 * S3 journal's requests (MinIO): counts carry over to a real store, times do not.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { EdisSimulator } from "../simulator/server";
import { CliResult, CliStack } from "../test/cli/pulumi";
import { PACKAGE_ROOT } from "../test/support/workspace";
import { S3Server, startS3Server } from "../test/support/s3Server";

const PROGRAM = join(PACKAGE_ROOT, "test", "programs", "servers");
const REFRESH_TARGET = { n: 200, maxCalls: 3 };
/** The request time limit of the "hosts that never answer" phase: short, so that the bench stays quick. */
const SILENT_HOSTS_TIMEOUT_SECONDS = 5;
const CATALOGUE = ["get/locations", "get/products", "get/paymentmethods", "get/billingcycles"];

type Row = Awaited<ReturnType<typeof measure>>;

function fleet(n: number, extra: Record<string, unknown> = {}): Record<string, Record<string, unknown>> {
    return Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
            `s${i}`,
            { planId: i % 2 ? 101 : 202, osId: 1012, hostname: `s${i}.bench.example.com`, cancellationType: "Immediate", ...extra },
        ]),
    );
}

async function measure(sim: EdisSimulator, s3: S3Server | undefined, n: number, batched: boolean, phase: string, run: () => Promise<CliResult>) {
    sim.clearLog();
    const before = await s3?.requestCounts();
    const result = await run();
    const after = await s3?.requestCounts();
    const s3Requests = after && Object.fromEntries(Object.keys(after).map((api) => [api, after[api] - (before?.[api] ?? 0)]).filter(([, d]) => d !== 0));
    const byEndpoint = sim.callCounts();
    if (result.code !== 0) console.error(`  ${phase} N=${n} failed:\n${result.output.slice(-2000)}`);
    return {
        n,
        batched,
        phase,
        ok: result.code === 0,
        wallMs: result.durationMs,
        calls: Object.values(byEndpoint).reduce((a, b) => a + b, 0),
        byEndpoint,
        peakConcurrentRequests: sim.peakConcurrency,
        s3Requests,
    };
}

async function benchSize(n: number, latencyMs: number, parallelism: number, batched: boolean, s3?: S3Server): Promise<{ rows: Row[]; providerBytes: number }> {
    const sim = await EdisSimulator.start({ latencyMs, provisioningDelayMs: 0 });
    const stack = await CliStack.create({
        programDir: PROGRAM,
        config: {
            ...sim.stackConfig(),
            "edis:paymentMethod": "credit",
            "edis:provisioningPollSeconds": "0.2",
            "edis:batchOrders": String(batched),
            "edis:maxNewServers": String(n),
            "edis-servers:servers": JSON.stringify(fleet(n)),
            ...(s3 ? { "edis:journalUrl": s3.journalUrl(await s3.bucket()) } : {}),
        },
        secretKeys: ["edis:email", "edis:password"],
        env: s3?.env,
    });
    sim.account.state.credit = 100_000_000;
    const at = (phase: string, run: () => Promise<CliResult>) => measure(sim, s3, n, batched, phase, run);
    const flags = [`--parallel=${parallelism}`];
    try {
        const rows = [await at("create", () => stack.up(flags)), await at("preview", () => stack.preview(flags)), await at("refresh", () => stack.refresh(flags))];
        if (n === REFRESH_TARGET.n && !batched) {
            rows.push(await at("refresh, unbounded parallelism", () => stack.refresh([`--parallel=${2 ** 31 - 1}`])));
            await stack.setConfig({ "edis:requestTimeoutSeconds": String(SILENT_HOSTS_TIMEOUT_SECONDS), "edis-servers:servers": JSON.stringify(fleet(n, { powerState: "on" })) });
            rows.push(await at("up: manage powerState", () => stack.up(flags)));
            rows.push(await at("refresh, powerState managed", () => stack.refresh(flags)));
            sim.inject({ endpoint: "get/power", hang: true, times: n });
            rows.push(await at(`refresh, powerState managed, hosts never answer (limit ${SILENT_HOSTS_TIMEOUT_SECONDS} s)`, () => stack.refresh(flags)));
            sim.clearFaults();
        }
        const state = Object.values(await stack.resources())[0];
        const providerBytes = Buffer.byteLength(String(state?.inputs?.__provider ?? ""));
        rows.push(await at("destroy", () => stack.destroy(flags)));
        return { rows, providerBytes };
    } finally {
        stack.dispose();
        await sim.stop();
    }
}

function targets(rows: Row[], providerBytes: number, parallelism: number) {
    const out: Array<{ what: string; figure: string; met: boolean }> = [];
    const target = (what: string, figure: unknown, met: boolean) => out.push({ what, figure: String(figure), met });
    const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    for (const r of rows) {
        const label = `N=${r.n}${r.batched ? " batched" : ""} ${r.phase}`;
        const calls = (...endpoints: string[]) => endpoints.reduce((a, e) => a + (r.byEndpoint[e] ?? 0), 0);
        if (!r.ok) target(`${label} succeeds`, "failed", false);
        if (r.phase === "create") {
            const maxOrders = r.batched ? Math.ceil(r.n / parallelism) + 1 : r.n;
            target(`${label}: add/order ≤ ${maxOrders}`, calls("add/order"), calls("add/order") <= maxOrders);
            target(`${label}: get/kvmid ≤ 1.1 N`, calls("get/kvmid"), calls("get/kvmid") <= 1.1 * r.n);
            target(`${label}: no get/power`, calls("get/power"), !calls("get/power"));
            target(`${label}: catalogue calls ≤ 6`, calls(...CATALOGUE), calls(...CATALOGUE) <= 6);
        }
        if (r.phase === "preview") target(`${label}: no call per server (≤ 6)`, r.calls, r.calls <= 6);
        if (r.phase === "refresh" || r.phase === "refresh, unbounded parallelism") {
            target(`${label}: ≤ ${REFRESH_TARGET.maxCalls} calls`, `${r.calls} calls, ${seconds(r.wallMs)}`, r.calls <= REFRESH_TARGET.maxCalls);
        }
        if (r.phase === "refresh, powerState managed") target(`${label}: 1 get/auth + 1 get/power per server`, `${r.calls} calls`, r.calls <= r.n + 1);
        if (r.phase.startsWith("refresh, powerState managed, hosts never answer")) {
            // Hosts that never answer cost one request limit over a refresh of the same fleet (the CLI's own time).
            const plain = rows.find((p) => p.n === r.n && p.batched === r.batched && p.phase === "refresh")?.wallMs ?? 0;
            const limit = plain + (SILENT_HOSTS_TIMEOUT_SECONDS + 2) * 1000;
            target(`${label}: within a plain refresh + ${SILENT_HOSTS_TIMEOUT_SECONDS} s + 2 s`, `${seconds(r.wallMs)} (plain ${seconds(plain)})`, r.wallMs <= limit);
        }
    }
    target("__provider ≤ 1,024 bytes per resource", `${providerBytes} bytes`, providerBytes > 0 && providerBytes <= 1024);
    return out;
}

function table(rows: Row[]): string {
    const header = ["N", "orders", "phase", "wall s", "API calls", "by endpoint", "peak concurrent requests", "S3 requests"];
    const body = rows.map((r) => [
        String(r.n),
        r.batched ? "batched" : "one each",
        r.phase + (r.ok ? "" : " (FAILED)"),
        (r.wallMs / 1000).toFixed(2),
        String(r.calls),
        Object.entries(r.byEndpoint).map(([e, c]) => `${e} ${c}`).join(", ") || "-",
        String(r.peakConcurrentRequests),
        r.s3Requests ? JSON.stringify(r.s3Requests) : "-",
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ");
    return [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
    const { values } = parseArgs({
        options: {
            sizes: { type: "string", default: "1,50,200,1000" },
            "latency-ms": { type: "string", default: "50" },
            parallelism: { type: "string", default: "16" },
            "no-batch": { type: "boolean", default: false },
            journal: { type: "string", default: "directory" },
        },
    });
    const sizes = values.sizes!.split(",").map(Number);
    const latencyMs = Number(values["latency-ms"]);
    const parallelism = Number(values.parallelism);
    const modes = values["no-batch"] ? [false] : [false, true];
    console.log(`pulumi-edis bench (the real pulumi CLI): ${latencyMs} ms latency per API call, --parallel ${parallelism}, N = ${sizes.join(", ")}, EDIS provisions at once`);

    const rows: Row[] = [];
    let providerBytes = 0;
    const s3 = values.journal === "s3" ? await startS3Server() : undefined;
    try {
        for (const batched of modes) {
            for (const n of sizes) {
                const result = await benchSize(n, latencyMs, parallelism, batched, s3);
                rows.push(...result.rows);
                providerBytes = result.providerBytes || providerBytes;
            }
        }
    } finally {
        await s3?.stop();
    }
    console.log(table(rows));
    console.log(`__provider: ${providerBytes} bytes per resource in state`);
    const checked = targets(rows, providerBytes, parallelism);
    for (const t of checked) console.log(`target: ${t.what}: ${t.figure}: ${t.met ? "met" : "MISSED"}`);
    const met = checked.every((t) => t.met);
    console.log(met ? `every target met (${checked.length})` : `${checked.filter((t) => !t.met).length} of ${checked.length} targets MISSED`);

    const dir = join(PACKAGE_ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    const report = { at: new Date().toISOString(), node: process.version, latencyMs, parallelism, providerBytes, rows, targets: checked };
    for (const to of [file, join(dir, "latest.json")]) writeFileSync(to, JSON.stringify(report, null, 2));
    console.log(`results: ${file}`);
    if (!met) process.exitCode = 1;
}

main().catch((e) => {
    console.error(`bench failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
});
