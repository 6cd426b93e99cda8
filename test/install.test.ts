/**
 * Installing as a user does it, before publication: `npm pack` in this repository, then in a copy of
 * examples/basic `npm install <the tarball>`, as the README says, with one copy of @pulumi/pulumi. The installed project then runs
 * through the engine path as it is: its own node_modules, its own @pulumi/pulumi and dynamic-provider host.
 *
 * `npm run test:install`; .ci/run runs it on Node 24. `npm test` leaves it out: test/cli/firstHour.cli.test.ts installs
 * the tarball the same way and checks the same copies, type check and unit test through the real CLI (it deploys the
 * Quick start; examples/basic itself is deployed by examples.cli from the repository).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestStack } from "./harness";
import { stackConfigFor, startSimulator } from "./support/sim";
import { docBlock } from "./support/docs";

const ROOT = join(__dirname, "..");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINrWGRolS8WmRbi62V96xA7WjSOMTE/l86PC+sXZS5SN you@laptop";
const work = mkdtempSync(join(tmpdir(), "edis-install-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every installed copy of a package under a node_modules tree. */
function copiesOf(modules: string, name: string): string[] {
    const found: string[] = [];
    const walk = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
            if (!entry.isDirectory()) continue;
            const path = join(dir, entry.name);
            if (path.endsWith(join("node_modules", name))) found.push(path);
            walk(path);
        }
    };
    walk(modules);
    return found;
}

test("npm pack, then npm install in examples/basic as its README says: one @pulumi/pulumi; the Quick start type-checks and unit-tests there; the example runs", async () => {
    // The repository's `npm test` has just built dist/, so the tarball is packed without running prepare again.
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", work], { cwd: ROOT, stdio: "ignore" });
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    expect(readdirSync(work)).toEqual([`pulumi-edis-${version}.tgz`]);
    const project = join(work, "examples", "basic");
    cpSync(join(ROOT, "examples", "basic"), project, { recursive: true, filter: (src) => !src.includes("node_modules") });
    // The template depends on pulumi-edis ^0.1.0; until it is published, the README installs the tarball.
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, `pulumi-edis-${version}.tgz`)], { cwd: project, stdio: "ignore" });

    const modules = join(project, "node_modules");
    expect(copiesOf(modules, join("@pulumi", "pulumi"))).toEqual([join(modules, "@pulumi", "pulumi")]);
    expect(copiesOf(modules, "pulumi-edis")).toEqual([join(modules, "pulumi-edis")]);
    // The AWS SDK is an optional peer, for a journal in S3 only: an install without one brings none of it.
    expect(copiesOf(modules, join("@aws-sdk", "client-s3"))).toEqual([]);

    // A consumer's type check and unit test of the README's Quick start, against the installed package alone.
    writeFileSync(join(project, "quickstart.ts"), docBlock("ts", 'new edis.KvmServer("web"'));
    writeFileSync(
        join(project, "unit.ts"),
        [
            'import * as pulumi from "@pulumi/pulumi";',
            'import * as edisTesting from "pulumi-edis/testing";',
            "async function main(): Promise<void> {",
            '    pulumi.runtime.setMocks(edisTesting.mocks(), "quickstart", "dev", false);',
            "    const account = await edisTesting.startTestAccount();",
            `    pulumi.runtime.setConfig("quickstart:sshPublicKey", ${JSON.stringify(KEY)});`,
            '    const infra = await import("./quickstart.js");',
            "    const kvmId = await new Promise((resolve) => infra.kvmId.apply(resolve));",
            "    console.log(JSON.stringify({ kvmId, orders: account.simulator.account.state.orders.length }));",
            "    await account.stop();",
            "}",
            "void main();",
        ].join("\n"),
    );
    const tsc = join(modules, "typescript", "bin", "tsc");
    // Type-checked by the compile that emits it: tsc exits non-zero on any type error.
    execFileSync(process.execPath, [tsc, "-p", ".", "--outDir", "out", "--rootDir", ".", "--sourceMap", "false"], { cwd: project, encoding: "utf8" });
    const unit = JSON.parse(execFileSync(process.execPath, [join(project, "out", "unit.js")], { cwd: project, encoding: "utf8" }).trim().split("\n").pop()!);
    expect(unit).toEqual({ kvmId: expect.stringMatching(/^kvm_\d+_000000$/), orders: 0 });

    const sim = await startSimulator();
    const stack = TestStack.create({ programDir: project, installed: true, config: stackConfigFor(sim), secretKeys: ["edis:email", "edis:password"] });
    try {
        const up = await stack.up();
        expect(up.errors).toEqual([]);
        expect(up.outputs).toMatchObject({ planName: "KVM M", osName: "Debian 12 (64bit)", kvmId: expect.stringMatching(/^kvm_/) });
        expect((await stack.destroy()).errors).toEqual([]);
        expect(sim.summary()).toMatchObject({ orders: 1, cancellations: 1 });
    } finally {
        stack.dispose();
        await sim.stop();
    }
}, 300_000);
