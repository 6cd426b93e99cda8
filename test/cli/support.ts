// What the real-CLI tests share: a simulator, a stack pointed at it, the paid-write witnesses, the credential check.
import { EdisSimulator, SimulatorOptions } from "../../simulator/server";
import { stackConfigFor, startSimulator } from "../support/sim";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../support/workspace";
import { CliResult, CliStack, credentialIn, ok, pulumiBinDir } from "./pulumi";

export { ok };

/** Keys a user sets with `--secret` (README, Configuration). */
export const SECRET_KEYS = ["edis:email", "edis:password"];

/** The test program that declares the servers its stack config lists (`declare`). */
export const SERVERS = join(PACKAGE_ROOT, "test", "programs", "servers");

export const PAID_WRITES = ["add/order", "add/upgrade", "cancel/product"];

export interface CliFixture {
    sim: EdisSimulator;
    stack: CliStack;
    dispose(): Promise<void>;
}

/** A simulator and a stack of `programDir` configured as the README says, pointed at it. */
export async function cliStack(
    programDir: string,
    options: { sim?: SimulatorOptions; config?: Record<string, string>; pulumiSdk?: string; installed?: boolean } = {},
): Promise<CliFixture> {
    const sim = await startSimulator({ provisioningDelayMs: 300, ...options.sim });
    const stack = await CliStack.create({ programDir, pulumiSdk: options.pulumiSdk, installed: options.installed, config: { ...stackConfigFor(sim), ...options.config }, secretKeys: SECRET_KEYS });
    return {
        sim,
        stack,
        async dispose() {
            stack.dispose();
            await sim.stop();
        },
    };
}

/** Fixtures disposed after each test: `const open = cliStacksPerTest();` at file top, `await open(dir)` in a test. */
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

// `pulumi up` killed (SIGKILL: a cancelled CI job) once `orders` add/orders answered: at the first get/kvmid after
// them, held until the signal is sent (asked only once the answer is journalled), so no clock decides the moment.
export async function upKilledWhileProvisioning(sim: EdisSimulator, stack: CliStack, signal: NodeJS.Signals = "SIGKILL", orders = 1): Promise<CliResult> {
    let sent = false;
    sim.holdByEndpoint["get/kvmid"] = async () => {
        if (sent || sim.calls("add/order").length < orders) return;
        sent = true;
        stack.kill(signal);
    };
    const r = await stack.up([]).finally(() => delete sim.holdByEndpoint["get/kvmid"]);
    expect(sent).toBe(true);
    if (signal === "SIGKILL") expect(r.signal).toBe("SIGKILL");
    return r;
}

/** What test/programs/servers declares on its next run: servers by name, and their resource options. */
export function declare(stack: CliStack, servers: object, options: object = {}): Promise<void> {
    return stack.setConfig({ "edis-servers:servers": JSON.stringify(servers), "edis-servers:options": JSON.stringify(options) });
}

/** A way into the provider, for the tables that run each case through both. */
export interface Door {
    name: string;
    programDir: string;
    urn(name: string, stack?: string): string;
    /** Declares the servers by name, with their aliases (old names). */
    declare(stack: CliStack, servers: Record<string, object>, aliases?: Record<string, string>): Promise<void>;
}

export const DOORS: Door[] = [
    {
        name: "the dynamic provider (TypeScript)",
        programDir: SERVERS,
        urn: (name, stack = "dev") => `urn:pulumi:${stack}::edis-servers::pulumi-nodejs:dynamic/edis:KvmServer::${name}`,
        declare: (stack, servers, aliases = {}) => {
            const options = Object.fromEntries(Object.entries(aliases).map(([n, old]) => [n, { aliases: [{ name: old }] }]));
            return declare(stack, servers, options);
        },
    },
    {
        name: "the plugin (YAML)",
        programDir: join(PACKAGE_ROOT, "test", "programs", "yaml-server"),
        urn: (name, stack = "dev") => `urn:pulumi:${stack}::edis-yaml-server::edis:index:KvmServer::${name}`,
        // The plugin as `npm install pulumi-edis` puts it on the PATH (node_modules/.bin): the other way users reach it;
        // plugin.cli and python.cli install the release archive. A YAML program is JSON too: the servers are its resources.
        async declare(stack, servers, aliases = {}) {
            stack.env.PATH = `${join(stack.project.dir, "node_modules", ".bin")}:${pulumiBinDir()}:${process.env.PATH}`;
            const resources = Object.fromEntries(
                Object.entries(servers).map(([n, properties]) => [
                    n,
                    { type: "edis:index:KvmServer", properties, ...(aliases[n] ? { options: { aliases: [this.urn(aliases[n], stack.stack)] } } : {}) },
                ]),
            );
            writeFileSync(join(stack.project.dir, "Pulumi.yaml"), JSON.stringify({ name: "edis-yaml-server", runtime: "yaml", resources }, null, 2));
        },
    },
];

export async function openDoor(open: typeof cliStack, door: Door, servers: Record<string, object>, options: Parameters<typeof cliStack>[1] = {}): Promise<CliFixture> {
    const f = await open(door.programDir, options);
    await door.declare(f.stack, servers);
    return f;
}

export function paidWrites(sim: EdisSimulator): string[] {
    return sim.log.filter((e) => PAID_WRITES.includes(e.endpoint)).map((e) => e.endpoint);
}

export function failed(r: CliResult): CliResult {
    if (r.code === 0) throw new Error(`${r.command} was expected to fail:\n${r.output}`);
    return r;
}

/** The order journal's files in the program's directory (the default journal), as a shared bucket would hold them. */
export function journalText(stack: CliStack): string {
    const dir = join(stack.project.dir, ".pulumi-edis", "journal");
    return existsSync(dir) ? readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("\n") : "";
}

/** No password, e-mail or issued signature, in any echo's encoding, in the backend, export, output or journal. */
export async function expectNoCredentials(f: CliFixture): Promise<void> {
    const { email, password } = f.sim.account.state;
    const secrets = [password, email, ...f.sim.account.issuedSignatures];
    const texts = { export: await f.stack.exportText(), backend: f.stack.backendText(), output: f.stack.log.join("\n"), journal: journalText(f.stack) };
    for (const [where, text] of Object.entries(texts)) {
        const found = credentialIn(text, secrets);
        if (found) throw new Error(`a credential (${found.slice(0, 3)}...) is in the ${where}`);
    }
}

/** The package's version: the plugin archives' and the schema's. */
const PLUGIN_VERSION: string = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version;

/** Where the archive was installed once for this test file (each stack's PULUMI_HOME links to it). */
let installedOnce: string | undefined;

// The plugin as a user installs it (`plugin install --file`, .ci/plugin-archives.sh's archive), ambient plugins
// ignored; installed once per test file, hard-linked (80 MB) into each stack's PULUMI_HOME, whose `plugin ls` lists it.
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
