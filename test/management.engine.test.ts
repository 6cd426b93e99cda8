/**
 * A deployment killed while hooks/set was at EDIS, through the real dynamic-provider host (the harness can kill it
 * mid-call). dayTwo.test covers the Management API resources' other cases on one core.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { OperationResult, TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { simulatorAndStack } from "./support/sim";

const PROGRAM = join(__dirname, "programs", "management");
const SERVER = { planId: 101, osId: 1012, hostname: "web-1.example.com" };

let sim: EdisSimulator;
let stack: TestStack;
const results: OperationResult[] = [];

beforeEach(async () => {
    ({ sim, stack } = await simulatorAndStack(PROGRAM, { provisioningDelayMs: 100 }));
    results.length = 0;
});
afterEach(async () => {
    // No secret anywhere Pulumi or a CI log keeps text.
    const text = [stack.stateText(), ...results.flatMap((r) => [...r.hostLog, ...r.errors, JSON.stringify(r.outputs ?? {})])].join("\n");
    for (const secret of [...sim.account.issuedSignatures, sim.account.state.password]) {
        expect(text).not.toContain(secret);
    }
    stack.dispose();
    await sim.stop();
});

function declare(alert?: object): void {
    stack.setConfig("edis-management:server", JSON.stringify(SERVER));
    if (alert) stack.setConfig("edis-management:alert", JSON.stringify(alert));
}

async function run(op: Promise<OperationResult>): Promise<OperationResult> {
    const r = await op;
    results.push(r);
    return r;
}

const web = () => sim.account.state.services[0];
const ALERT = { callbackUrl: "https://hooks.example.com/edis", triggerPercent: 80, callbackUser: "edis" };

test("the whole deployment killed while hooks/set was at EDIS: the rerun sends nothing and says a hook may exist", async () => {
    declare();
    expect((await run(stack.up())).errors).toEqual([]);
    declare(ALERT);
    sim.latencyByEndpoint["hooks/set"] = 1_500;
    const journal = join(stack.project.dir, ".pulumi-edis", "journal");
    stack.onHostStarted = () => {
        const watch = setInterval(() => {
            if (existsSync(journal) && readdirSync(journal).some((f) => f.includes(".hook.json."))) {
                // The journal says "sending"; the request reaches EDIS a moment later and waits there 1.5 s.
                clearInterval(watch);
                setTimeout(() => void stack.crash(), 200);
            }
        }, 5);
    };
    results.push(await stack.up());
    stack.onHostStarted = undefined;
    await new Promise((r) => setTimeout(r, 2_000)); // EDIS adds the hook the dead deployment asked for
    expect(web().hooks).toHaveLength(1);

    const rerun = await run(stack.up());
    expect(rerun.warnings).toEqual([expect.stringContaining("1 pending create operation(s)")]);
    expect(rerun.errors.join("\n")).toContain("may or may not have been made: the deployment that sent it at");
    expect(sim.calls("hooks/set")).toHaveLength(1);
    expect(web().hooks).toHaveLength(1);
});
