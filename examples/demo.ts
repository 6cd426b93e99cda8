/**
 * `npm run demo`: from "which plan?" to a running server and back, against the embedded EDIS simulator.
 *
 * Starts the simulator, then deploys examples/basic: `up`, a change made behind Pulumi's back, a plain
 * `preview` that shows the drift (the example's Pulumi.yaml sets `options: refresh: always`), a `refresh` that
 * records it, and `destroy`,
 * printing each step; it ends with the simulator's
 * record of orders and cancellations, through the Pulumi CLI on the PATH (the Automation API and a local file://
 * backend); without one it says how to install it.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EdisSimulator } from "../simulator/server";
import { PACKAGE_ROOT, createProject } from "../test/support/workspace";

const EXAMPLE = join(PACKAGE_ROOT, "examples", "basic");

type Out = (line: string) => void;

interface DemoStep {
    title: string;
    lines: string[];
}

function hasPulumiCli(): boolean {
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

const PREVIEW_TITLE = "pulumi preview (Pulumi.yaml: options.refresh: always, so it refreshes first)";

// ---- the Pulumi CLI way ----------------------------------------------------------------------------

async function cliDriver(sim: EdisSimulator) {
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
    if (!hasPulumiCli()) {
        throw new Error(
            "no Pulumi CLI on the PATH: install it (`curl -fsSL https://get.pulumi.com | sh`, see https://www.pulumi.com/docs/install/), or build the pinned one with `npm run pulumi:install` and put the bin directory it prints on the PATH",
        );
    }
    out("Pulumi CLI found: deploying examples/basic with the Automation API and a local file:// backend.");
    const sim = await EdisSimulator.start({ provisioningDelayMs: 1500 });
    out(`EDIS simulator at ${sim.url} (account ${sim.account.state.email}); nothing leaves this machine, nothing is billed.`);
    const driver = await cliDriver(sim);
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
