/**
 * A deployment killed while hooks/set was at EDIS, through the real dynamic-provider host (the harness can kill it
 * mid-call). dayTwo.test covers the Management API resources' other cases on one core.
 */
import { join } from "node:path";
import { TestStack } from "./harness";
import { EdisSimulator } from "../simulator/server";
import { simulatorAndStack, until } from "./support/sim";

const PROGRAM = join(__dirname, "programs", "management");
const SERVER = { planId: 101, osId: 1012, hostname: "web-1.example.com" };

let sim: EdisSimulator;
let stack: TestStack;

beforeEach(async () => ({ sim, stack } = await simulatorAndStack(PROGRAM, { provisioningDelayMs: 100 })));
afterEach(async () => {
    stack.dispose();
    await sim.stop();
});

const web = () => sim.account.state.services[0];
const ALERT = { callbackUrl: "https://hooks.example.com/edis", triggerPercent: 80, callbackUser: "edis" };

test("the whole deployment killed while hooks/set was at EDIS: the rerun sends nothing and says a hook may exist", async () => {
    stack.setConfig("edis-management:server", JSON.stringify(SERVER));
    const first = await stack.up();
    expect(first.errors).toEqual([]);
    stack.setConfig("edis-management:alert", JSON.stringify(ALERT));
    // hooks/set reaches EDIS; the deployment is killed before EDIS acts on it, and EDIS acts all the same.
    sim.holdByEndpoint["hooks/set"] = () => stack.crash();
    const killed = await stack.up().finally(() => delete sim.holdByEndpoint["hooks/set"]);
    await until(() => (web().hooks ?? []).length > 0, "EDIS adds the hook the dead deployment asked for");
    expect(web().hooks).toHaveLength(1);

    const rerun = await stack.up();
    expect(rerun.warnings).toEqual([expect.stringContaining("1 pending create operation(s)")]);
    expect(rerun.errors.join("\n")).toContain("may or may not have been made: the deployment that sent it at");
    expect(sim.calls("hooks/set")).toHaveLength(1);
    expect(web().hooks).toHaveLength(1);
    // No secret anywhere Pulumi or a CI log keeps text.
    const text = [stack.stateText(), ...[first, killed, rerun].flatMap((r) => [...r.hostLog, ...r.errors, JSON.stringify(r.outputs ?? {})])].join("\n");
    for (const secret of [...sim.account.issuedSignatures, sim.account.state.password]) {
        expect(text).not.toContain(secret);
    }
});
