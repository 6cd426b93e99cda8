/**
 * Installing as a user does it, before publication: `npm pack` in this repository, then in examples/basic
 * `npm install`, which installs that tarball (package.json: "pulumi-edis": "file:../../pulumi-edis-0.1.0.tgz")
 * from the npm registry's dependencies, with one copy of @pulumi/pulumi. The installed project then runs
 * through the engine path as it is: its own node_modules, its own @pulumi/pulumi and dynamic-provider host.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestStack } from "./harness";
import { stackConfigFor, startSimulator } from "./support/sim";

const ROOT = join(__dirname, "..");
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

test("npm pack, then npm install in examples/basic as its README says: one @pulumi/pulumi, and the example runs", async () => {
    // The repository's `npm test` has just built dist/, so the tarball is packed without running prepare again.
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", work], { cwd: ROOT, stdio: "ignore" });
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    expect(readdirSync(work)).toEqual([`pulumi-edis-${version}.tgz`]);
    const project = join(work, "examples", "basic");
    cpSync(join(ROOT, "examples", "basic"), project, { recursive: true, filter: (src) => !src.includes("node_modules") });
    execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: project, stdio: "ignore" });

    const modules = join(project, "node_modules");
    expect(copiesOf(modules, join("@pulumi", "pulumi"))).toEqual([join(modules, "@pulumi", "pulumi")]);
    expect(copiesOf(modules, "pulumi-edis")).toEqual([join(modules, "pulumi-edis")]);

    const sim = await startSimulator();
    const stack = TestStack.create({ programDir: project, installed: true, config: stackConfigFor(sim), secretKeys: ["edis:password"] });
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
