/**
 * `npm run bench`: a fleet through the engine-path harness against the simulator with 50 ms of latency on
 * every API call, for N = 1, 10, 50 and 200 servers. For create (up), preview, refresh and destroy it prints
 * wall time, API calls by endpoint and the provider host's peak memory, as one table, and writes the same as
 * JSON under bench/results/. It exits non-zero when the refresh target is missed (200 servers: at most 3
 * API calls and under 2 s).
 *
 * Options: --sizes 1,10,50,200   --latency-ms 50   --parallelism 16
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { EdisSimulator } from "../simulator/server";
import { OperationResult, PACKAGE_ROOT, TestStack } from "../test/harness";

const PROGRAM = join(PACKAGE_ROOT, "test", "programs", "servers");
const REFRESH_TARGET = { n: 200, maxCalls: 3, maxSeconds: 2 };

interface Row {
    n: number;
    phase: string;
    ok: boolean;
    wallMs: number;
    calls: number;
    byEndpoint: Record<string, number>;
    hostPeakMb?: number;
    hostSpawnMs: number;
    hostColdStartMs: number;
    /** The first resource call, which the cold start includes: check is offline, read/delete call the API. */
    hostColdStartCall: string;
    peakConcurrentRequests: number;
}

function fleet(n: number): Record<string, Record<string, unknown>> {
    // Spread over two locations and two plans, as a real fleet would be.
    return Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
            `s${i}`,
            { planId: i % 2 ? 101 : 202, osId: 1012, hostname: `s${i}.bench.example.com`, cancellationType: "Immediate" },
        ]),
    );
}

async function measure(sim: EdisSimulator, n: number, phase: string, run: () => Promise<OperationResult>): Promise<Row> {
    sim.clearLog();
    const result = await run();
    const byEndpoint = sim.callCounts();
    if (result.errors.length) console.error(`  ${phase} N=${n} failed: ${result.errors.slice(0, 3).join("; ")}`);
    return {
        n,
        phase,
        ok: result.errors.length === 0,
        wallMs: result.durationMs,
        calls: Object.values(byEndpoint).reduce((a, b) => a + b, 0),
        byEndpoint,
        hostPeakMb: result.host?.peakRssKb ? Math.round(result.host.peakRssKb / 102.4) / 10 : undefined,
        hostSpawnMs: result.host?.spawnMs ?? 0,
        hostColdStartMs: result.host?.coldStartMs ?? 0,
        hostColdStartCall: result.host?.coldStartCall ?? "",
        peakConcurrentRequests: sim.peakConcurrency,
    };
}

async function benchSize(n: number, latencyMs: number, parallelism: number): Promise<{ rows: Row[]; providerBytes: number }> {
    const sim = await EdisSimulator.start({ latencyMs, provisioningDelayMs: 200 });
    const stack = TestStack.create({
        programDir: PROGRAM,
        parallelism,
        config: {
            ...sim.stackConfig(),
            "edis:paymentMethod": "credit",
            "edis:provisioningPollSeconds": "0.2",
            "edis-servers:servers": JSON.stringify(fleet(n)),
        },
        secretKeys: ["edis:email", "edis:password"],
    });
    sim.account.state.credit = 1_000_000;
    try {
        const rows = [
            await measure(sim, n, "create", () => stack.up()),
            await measure(sim, n, "preview", () => stack.preview()),
            await measure(sim, n, "refresh", () => stack.refresh()),
        ];
        if (n === REFRESH_TARGET.n) {
            stack.parallelism = Number.MAX_SAFE_INTEGER;
            rows.push(await measure(sim, n, "refresh, unbounded parallelism", () => stack.refresh()));
            stack.parallelism = parallelism;
        }
        const providerBytes = Buffer.byteLength(String(stack.state().resources[0]?.inputs.__provider ?? ""));
        rows.push(await measure(sim, n, "destroy", () => stack.destroy()));
        return { rows, providerBytes };
    } finally {
        stack.dispose();
        await sim.stop();
    }
}

function table(rows: Row[]): string {
    const header = ["N", "phase", "wall s", "API calls", "by endpoint", "host peak MB", "host spawn ms", "host cold start ms (first call)"];
    const body = rows.map((r) => [
        String(r.n),
        r.phase + (r.ok ? "" : " (FAILED)"),
        (r.wallMs / 1000).toFixed(2),
        String(r.calls),
        Object.entries(r.byEndpoint).map(([e, c]) => `${e} ${c}`).join(", ") || "-",
        r.hostPeakMb?.toFixed(1) ?? "?",
        String(r.hostSpawnMs),
        `${r.hostColdStartMs} (${r.hostColdStartCall})`,
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ");
    return [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
    const { values } = parseArgs({
        options: {
            sizes: { type: "string", default: "1,10,50,200" },
            "latency-ms": { type: "string", default: "50" },
            parallelism: { type: "string", default: "16" },
        },
    });
    const sizes = values.sizes!.split(",").map(Number);
    const latencyMs = Number(values["latency-ms"]);
    const parallelism = Number(values.parallelism);
    console.log(`pulumi-edis bench: ${latencyMs} ms latency per API call, engine parallelism ${parallelism}, N = ${sizes.join(", ")}`);

    const rows: Row[] = [];
    let providerBytes = 0;
    for (const n of sizes) {
        const result = await benchSize(n, latencyMs, parallelism);
        rows.push(...result.rows);
        providerBytes = result.providerBytes || providerBytes;
    }
    console.log(table(rows));
    // Only a first `check` is offline: its figure is the host's start-up alone.
    const coldStarts = rows.filter((r) => r.hostColdStartCall === "check").map((r) => r.hostColdStartMs);
    const spawns = rows.map((r) => r.hostSpawnMs);
    console.log(
        `host cold start (Configure + first call, offline check): median ${median(coldStarts)} ms, max ${Math.max(...coldStarts)} ms; ` +
            `host spawn to listening: median ${median(spawns)} ms; __provider: ${providerBytes} bytes per resource in state`,
    );

    const refresh = rows.find((r) => r.n === REFRESH_TARGET.n && r.phase === "refresh");
    let met = true;
    if (refresh) {
        met = refresh.ok && refresh.calls <= REFRESH_TARGET.maxCalls && refresh.wallMs < REFRESH_TARGET.maxSeconds * 1000;
        console.log(
            `target: refresh of ${REFRESH_TARGET.n} servers with at most ${REFRESH_TARGET.maxCalls} API calls in under ${REFRESH_TARGET.maxSeconds} s: ` +
                `${refresh.calls} calls, ${(refresh.wallMs / 1000).toFixed(2)} s: ${met ? "met" : "MISSED"}`,
        );
    }
    const dir = join(PACKAGE_ROOT, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    const report = { at: new Date().toISOString(), node: process.version, latencyMs, parallelism, providerBytes, rows };
    writeFileSync(file, JSON.stringify(report, null, 2));
    writeFileSync(join(dir, "latest.json"), JSON.stringify(report, null, 2));
    console.log(`results: ${file}`);
    if (!met || rows.some((r) => !r.ok)) process.exitCode = 1;
}

function median(values: number[]): number {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

main().catch((e) => {
    console.error(`bench failed: ${(e as Error).stack ?? e}`);
    process.exit(1);
});
