/**
 * What the real-CLI tests share: a simulator and a stack of a program pointed at it, the witnesses (the
 * simulator's record of paid writes), and the check that no credential reached anything the user can read.
 */
import { EdisSimulator, SimulatorOptions } from "../../simulator/server";
import { stackConfigFor, startSimulator } from "../support/sim";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../harness/workspace";
import { CliResult, CliStack, pulumiBinDir } from "./pulumi";

/** Keys a user sets with `--secret` (README, Configuration). */
export const SECRET_KEYS = ["edis:email", "edis:password"];

export const PAID_WRITES = ["add/order", "add/upgrade", "cancel/product"];

export interface CliFixture {
    sim: EdisSimulator;
    stack: CliStack;
    /** Every command's output so far, for the credential check. */
    outputs: string[];
    dispose(): Promise<void>;
}

/** A simulator and a stack of `programDir` configured as the README says, pointed at it. */
export async function cliStack(
    programDir: string,
    options: { sim?: SimulatorOptions; config?: Record<string, string>; stack?: string; pulumiSdk?: string; installed?: boolean } = {},
): Promise<CliFixture> {
    const sim = await startSimulator({ provisioningDelayMs: 300, ...options.sim });
    const stack = await CliStack.create({ programDir, stack: options.stack, pulumiSdk: options.pulumiSdk, installed: options.installed, config: { ...stackConfigFor(sim), ...options.config }, secretKeys: SECRET_KEYS });
    const outputs: string[] = [];
    // Keep every command's output for the credential check at the end.
    const run = stack.run.bind(stack);
    stack.run = async (...args: Parameters<CliStack["run"]>) => {
        const r = await run(...args);
        outputs.push(r.output);
        return r;
    };
    return {
        sim,
        stack,
        outputs,
        async dispose() {
            stack.dispose();
            await sim.stop();
        },
    };
}

/**
 * Opens fixtures that are disposed after each test: `const open = cliStacksPerTest();` at the top of a file,
 * then `const { sim, stack } = await open(dir, options)` in a test.
 */
export function cliStacksPerTest(): typeof cliStack {
    const opened: CliFixture[] = [];
    afterEach(async () => {
        for (const f of opened.splice(0)) await f.dispose();
    });
    return async (...args) => {
        const f = await cliStack(...args);
        opened.push(f);
        return f;
    };
}

/** `pulumi up`, killed with SIGKILL (as a cancelled CI job is; SIGINT is Ctrl-C) once add/order has answered and provisioning is being waited for. */
export function upKilledWhileProvisioning(sim: EdisSimulator, stack: CliStack, signal: NodeJS.Signals = "SIGKILL"): Promise<CliResult> {
    return stack.up([], {
        onStart: () => {
            const poll = setInterval(() => {
                if (sim.calls("get/kvmid").length > 0) {
                    clearInterval(poll);
                    stack.kill(signal);
                }
            }, 20);
        },
    });
}

/** The paid writes the simulator received, in order. */
export function paidWrites(sim: EdisSimulator): string[] {
    return sim.log.filter((e) => PAID_WRITES.includes(e.endpoint)).map((e) => e.endpoint);
}

/** A command that must have succeeded; fails the test with its output otherwise. */
export function ok(r: CliResult): CliResult {
    if (r.code !== 0) throw new Error(`${r.command} exited ${r.code}:\n${r.output}`);
    return r;
}

/** A command that must have failed. */
export function failed(r: CliResult): CliResult {
    if (r.code === 0) throw new Error(`${r.command} was expected to fail:\n${r.output}`);
    return r;
}

/** Each custom resource's operations, by name, refresh steps included, in the engine's order. */
export function opsOf(r: CliResult): Record<string, string[]> {
    const ops: Record<string, string[]> = {};
    for (const s of r.steps) (ops[s.name] ??= []).push(s.failed ? `${s.op}!` : s.op);
    return ops;
}

/**
 * No byte of the account's password, its e-mail or any session signature the simulator issued, in any of the
 * encodings an echo may use, in the stack's state (the backend's every file: checkpoint, history, backups),
 * `pulumi stack export`, or any command's output.
 */
export async function expectNoCredentials(f: CliFixture): Promise<void> {
    const { email, password } = f.sim.account.state;
    const secrets = [password, email, ...f.sim.account.issuedSignatures];
    const forms = secrets.flatMap((s) => [s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1), Buffer.from(s).toString("base64")]);
    const texts = { export: await f.stack.exportText(), backend: f.stack.backendText(), output: f.outputs.join("\n") };
    for (const [where, text] of Object.entries(texts)) {
        for (const form of forms) {
            if (text.toLowerCase().includes(form.toLowerCase())) throw new Error(`a credential (${form.slice(0, 3)}...) is in the ${where}`);
        }
    }
}

/** The package's version: the plugin archives' and the schema's. */
const PLUGIN_VERSION: string = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version;

/** Where the archive was installed once for this test file (each stack's PULUMI_HOME links to it). */
let installedOnce: string | undefined;

/**
 * The provider plugin as a Pulumi user installs it: `pulumi plugin install resource edis <version> --file <archive>`
 * (the archive .ci/plugin-archives.sh builds, before the tests), with ambient plugins ignored and no
 * pulumi-resource-edis on the PATH. It is installed once per test file, into a PULUMI_HOME of its own; each stack's
 * PULUMI_HOME gets the installed plugin (an 80 MB tree) as hard links, and `pulumi plugin ls` there must list it.
 */
export async function installPlugin(stack: CliStack): Promise<CliStack> {
    const archive = join(PACKAGE_ROOT, "plugins", `pulumi-resource-edis-v${PLUGIN_VERSION}-linux-amd64.tar.gz`);
    if (!existsSync(archive)) throw new Error(`${archive} is missing: run \`npm run plugins\` (\`npm run test:cli\` does) before this test`);
    const path = (process.env.PATH ?? "").split(":").filter((dir) => !dir.includes("node_modules/.bin") && !existsSync(join(dir, "pulumi-resource-edis")));
    stack.env.PATH = [pulumiBinDir(), ...path].join(":");
    stack.env.PULUMI_IGNORE_AMBIENT_PLUGINS = "true";
    const name = `resource-edis-v${PLUGIN_VERSION}`;
    if (!installedOnce) {
        const home = mkdtempSync(join(tmpdir(), "edis-plugin-home-"));
        execFileSync(join(pulumiBinDir(), "pulumi"), ["plugin", "install", "resource", "edis", PLUGIN_VERSION, "--file", archive, "--non-interactive"], {
            env: { ...process.env, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" },
            stdio: "ignore",
        });
        installedOnce = join(home, "plugins");
    }
    mkdirSync(join(stack.home, "plugins"), { recursive: true });
    // Hard links (the engine passes over a plugin directory that is a symbolic link).
    for (const entry of readdirSync(installedOnce).filter((e) => e.startsWith(name))) execFileSync("cp", ["-al", join(installedOnce, entry), join(stack.home, "plugins", entry)]);
    const listed = ok(await stack.run(["plugin", "ls"])).output;
    if (!new RegExp(`^edis\\s+resource\\s+${PLUGIN_VERSION.replace(/\./g, "\\.")}\\s`, "m").test(listed)) throw new Error(`pulumi plugin ls does not list edis ${PLUGIN_VERSION}:\n${listed}`);
    return stack;
}
