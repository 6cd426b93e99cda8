/**
 * `npm run demo`: from "which plan?" to a running server and back, against the embedded EDIS simulator.
 *
 * Starts the simulator, then deploys examples/basic: `up`, a change made behind Pulumi's back, a plain
 * `preview` that shows the drift (the example's Pulumi.yaml sets `options: refresh: always`), a `refresh` that
 * records it, and `destroy`,
 * printing each step; it ends with the simulator's
 * record of orders and cancellations. With a Pulumi CLI on the PATH it uses the Automation API and a local
 * file:// backend; without one it says so and runs the same steps through the engine-path harness (the real
 * @pulumi/pulumi provider host, driven as the engine would), so that it works on any machine with Node.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EdisSimulator } from "../simulator/server";
import { OperationResult, PACKAGE_ROOT, TestStack, createProject } from "../test/harness";

const EXAMPLE = join(PACKAGE_ROOT, "examples", "basic");

type Out = (line: string) => void;

interface DemoStep {
    title: string;
    lines: string[];
}

/** What the demo needs from either way of running Pulumi. */
interface Driver {
    up(): Promise<DemoStep>;
    preview(): Promise<DemoStep>;
    refresh(): Promise<DemoStep>;
    destroy(): Promise<DemoStep>;
    close(): Promise<void>;
}

function hasPulumiCli(): boolean {
    if (process.env.EDIS_DEMO_HARNESS === "1") return false;
    const probe = spawnSync("pulumi", ["version"], { stdio: "ignore" });
    return probe.status === 0;
}

function stackConfig(sim: EdisSimulator): Record<string, string> {
    return {
        ...sim.stackConfig(),
        "edis:paymentMethod": "credit",
        "edis:provisioningPollSeconds": "0.5",
    };
}

// ---- the harness way -------------------------------------------------------------------------------

function harnessDriver(sim: EdisSimulator): Driver {
    const stack = TestStack.create({ programDir: EXAMPLE, stack: "demo", config: stackConfig(sim), secretKeys: ["edis:email", "edis:password"] });
    const describe = (r: OperationResult, verb: string): string[] => {
        // A refresh that changed nothing is not worth a line; one that did shows what drifted.
        const lines = r.steps
            .filter((s) => s.op !== "refresh" || s.result !== "same")
            .map((s) => `   ${symbol(s.result ?? s.op)} ${s.name}  ${s.op}${s.result ? `: ${s.result}` : ""}${s.changed?.length ? ` (${s.changed.join(", ")})` : ""}`);
        for (const [name, drift] of Object.entries(r.drift)) {
            for (const [key, d] of Object.entries(drift)) lines.push(`   ~ ${name}  drift: ${key} ${JSON.stringify(d.before)} -> ${JSON.stringify(d.after)}`);
        }
        if (r.outputs) lines.push(`   outputs: ${Object.entries(r.outputs).map(([k, v]) => `${k}=${String(v)}`).join(", ")}`);
        const counts = countOps(r);
        lines.push(`   ${verb}: ${counts || "no changes"} in ${(r.durationMs / 1000).toFixed(1)} s`);
        for (const e of r.errors) lines.push(`   error: ${e}`);
        return lines;
    };
    return {
        async up() {
            return { title: "pulumi up (examples/basic)", lines: describe(await stack.up(), "resources") };
        },
        async preview() {
            const r = await stack.preview();
            const lines = describe({ ...r, outputs: undefined }, "plan");
            lines.splice(-1, 1, `   plan: ${countOps(r) || "no changes"}; \`pulumi preview --expect-no-changes\` would ${r.hasChanges ? "fail" : "pass"}`);
            return { title: PREVIEW_TITLE, lines };
        },
        async refresh() {
            return { title: "pulumi refresh", lines: describe(await stack.refresh(), "resources") };
        },
        async destroy() {
            return { title: "pulumi destroy", lines: describe(await stack.destroy(), "resources") };
        },
        async close() {
            stack.dispose();
        },
    };
}

const PREVIEW_TITLE = "pulumi preview (Pulumi.yaml: options.refresh: always, so it refreshes first)";

function symbol(op: string): string {
    return ({ create: "+", delete: "-", update: "~", replace: "+-", refresh: "~", same: " ", read: ">" } as Record<string, string>)[op] ?? "?";
}

function countOps(r: Pick<OperationResult, "steps" | "kind">): string {
    const counts: Record<string, number> = {};
    // A refresh reports what it changed in state; the other operations what they did to resources.
    const ops = r.kind === "refresh" ? r.steps.map((s) => s.result) : r.steps.map((s) => s.op).filter((op) => op !== "refresh");
    for (const op of ops) if (op && op !== "same") counts[op] = (counts[op] ?? 0) + 1;
    const past: Record<string, string> = { create: "created", update: "updated", replace: "replaced", delete: "deleted", read: "read" };
    if (r.kind === "preview") Object.assign(past, { create: "to create", update: "to update", replace: "to replace", delete: "to delete" });
    return Object.entries(counts).map(([op, n]) => `${n} ${past[op] ?? op}`).join(", ");
}

// ---- the Pulumi CLI way ----------------------------------------------------------------------------

async function cliDriver(sim: EdisSimulator): Promise<Driver> {
    const auto = await import("@pulumi/pulumi/automation");
    const backend = mkdtempSync(join(tmpdir(), "edis-demo-backend-"));
    const project = createProject(EXAMPLE);
    const envVars = { PULUMI_BACKEND_URL: `file://${backend}`, PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex") };
    const stack = await auto.LocalWorkspace.createOrSelectStack({ stackName: "demo", workDir: project.dir }, { envVars });
    const config = stackConfig(sim);
    await stack.setAllConfig(Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { value: v, secret: k === "edis:password" || k === "edis:email" }])));
    const summarize = (changes: Record<string, number> | undefined) =>
        Object.entries(changes ?? {}).filter(([op]) => op !== "same").map(([op, n]) => `${n} ${op}`).join(", ") || "no changes";
    return {
        async up() {
            const r = await stack.up();
            const outputs = Object.entries(r.outputs).map(([k, v]) => `${k}=${v.secret ? "[secret]" : String(v.value)}`).join(", ");
            return { title: "pulumi up (examples/basic)", lines: [`   outputs: ${outputs}`, `   resources: ${summarize(r.summary.resourceChanges)}`] };
        },
        async preview() {
            const r = await stack.preview({ diff: true });
            const drift = r.stdout.split("\n").filter((l) => /suspended/.test(l)).map((l) => `   ${l.trim()}`);
            return { title: PREVIEW_TITLE, lines: [...drift, `   plan: ${summarize(r.changeSummary)}`] };
        },
        async refresh() {
            const r = await stack.refresh();
            return { title: "pulumi refresh", lines: [`   resources: ${summarize(r.summary.resourceChanges)}`] };
        },
        async destroy() {
            const r = await stack.destroy();
            return { title: "pulumi destroy", lines: [`   resources: ${summarize(r.summary.resourceChanges)}`] };
        },
        async close() {
            await stack.workspace.removeStack("demo", { force: true });
            rmSync(backend, { recursive: true, force: true });
        },
    };
}

// ---- the demo --------------------------------------------------------------------------------------

export async function runDemo(out: Out = (l) => console.log(l)): Promise<void> {
    const cli = hasPulumiCli();
    out(
        cli
            ? "Pulumi CLI found: deploying examples/basic with the Automation API and a local file:// backend."
            : "No Pulumi CLI on the PATH (install it with `curl -fsSL https://get.pulumi.com | sh`, see https://www.pulumi.com/docs/install/): " +
                  "running the same steps through the engine-path harness, the real @pulumi/pulumi provider host driven as the engine would.",
    );
    const sim = await EdisSimulator.start({ provisioningDelayMs: 1500 });
    out(`EDIS simulator at ${sim.url} (account ${sim.account.state.email}); nothing leaves this machine, nothing is billed.`);
    const driver = cli ? await cliDriver(sim) : harnessDriver(sim);
    const print = (step: DemoStep) => {
        out(`== ${step.title}`);
        for (const line of step.lines) out(line);
    };
    try {
        print(await driver.up());
        const service = sim.account.state.services.find((s) => s.status === "Active");
        if (service) {
            sim.account.setSuspended(service.serviceId, true);
            out(`== behind Pulumi's back: EDIS suspends ${service.hostname} (service ${service.serviceId})`);
        }
        print(await driver.preview());
        print(await driver.refresh());
        print(await driver.destroy());
    } finally {
        await driver.close();
        const s = sim.account.state;
        const active = s.services.filter((x) => x.status !== "Cancelled" && !x.cancellation).length;
        out(
            `== simulator record: ${s.orders.length} order(s) placed, ${s.cancellations.length} service(s) cancelled ` +
                `(${[...new Set(s.cancellations.map((c) => c.type))].join(", ") || "none"}), ${active} running without a cancellation`,
        );
        await sim.stop();
    }
}

if (require.main === module) {
    runDemo().catch((e) => {
        console.error(`demo failed: ${(e as Error).message}`);
        process.exit(1);
    });
}
