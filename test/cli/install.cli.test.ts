// A user's first hour with the real CLI, as the README says. `npm run test:install` (CI: Node 24); not in test:cli.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../support/workspace";
import { pulumiBinDir } from "./pulumi";
import { docBlock, docBlocks } from "../support/docs";
import { cliStacksPerTest, expectNoCredentials, ok, paidWrites } from "./support";

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"));
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINrWGRolS8WmRbi62V96xA7WjSOMTE/l86PC+sXZS5SN you@laptop";
const open = cliStacksPerTest();
const work = mkdtempSync(join(tmpdir(), "edis-first-hour-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function npm(args: string[], cwd: string): void {
    execFileSync("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline"], { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

/** `tsc --noEmit -p <tsconfig>` with a given TypeScript: its whole output, empty when it compiles. */
function tsc(typescriptDir: string, project: string, tsconfig = "tsconfig.json"): { version: string; output: string; status: number | null } {
    const version = JSON.parse(readFileSync(join(typescriptDir, "package.json"), "utf8")).version as string;
    const run = spawnSync(process.execPath, [join(typescriptDir, "bin", "tsc"), "--noEmit", "--pretty", "false", "-p", tsconfig], { cwd: project, encoding: "utf8" });
    return { version, output: run.stdout + run.stderr, status: run.status };
}

test("pulumi new from examples/basic outside the repository, npm install of the tarball, the Quick start, the README's unit test and the reference's examples compiled with TypeScript 5.9 and 6, unit-tested, and deployed", async () => {
    // npm pack, as the README's Install says (dist/ is built by test:cli).
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", work], { cwd: PACKAGE_ROOT, stdio: "ignore" });
    const tarball = join(work, `pulumi-edis-${manifest.version}.tgz`);
    expect(existsSync(tarball)).toBe(true);

    // `pulumi new` as the README prints it, run from the repository (its `$PWD`), into this test's directory: the
    // template's path is absolute, so the CLI reads it as a directory, never as a template name to fetch.
    const project = join(work, "my-servers");
    const home = join(work, "pulumi-home");
    mkdirSync(home);
    const printed = docBlock("sh", "pulumi new").split("\n").find((l) => l.startsWith("pulumi new "))!.replace(/\s+#.*$/, "");
    expect(printed).toBe('pulumi new "$PWD/examples/basic" --dir ../my-servers --generate-only');
    const created = spawnSync("bash", ["-c", `${printed.replace("../my-servers", JSON.stringify(project))} --yes --force --name my-servers`], {
        cwd: PACKAGE_ROOT,
        encoding: "utf8",
        env: { ...process.env, PATH: `${pulumiBinDir()}:${process.env.PATH}`, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_BACKEND_URL: `file://${work}` },
    });
    expect(created.stdout + created.stderr).toContain("Created project 'my-servers'");
    // The stand-in language host of this machine (.ci/pulumi-language-nodejs.js) cannot serve `pulumi new` before
    // @pulumi/pulumi is installed, so the CLI may stop after writing the project; the files are what is tested.
    if (created.status !== 0) expect(created.stdout + created.stderr).toContain("failed to load language plugin nodejs");
    expect(readdirSync(project).sort()).toEqual([".gitignore", "Pulumi.yaml", "README.md", "index.ts", "package.json", "tsconfig.json"]);
    expect(readFileSync(join(project, "Pulumi.yaml"), "utf8")).toMatch(/^name: my-servers$/m);
    const generated = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    // Nothing that points back into the repository: the template installs wherever it is made.
    expect(JSON.stringify(generated)).not.toMatch(/file:|\.\.\//);
    expect(generated.dependencies["pulumi-edis"]).toBe(`^${manifest.version}`);

    npm(["install", tarball], project);
    npm(["install", "-D", ...docBlock("sh", "ts-jest@29").trim().split(/\s+/).slice(3)], project);
    const modules = join(project, "node_modules");
    const installed = (name: string) => JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")).version as string;
    expect(installed("pulumi-edis")).toBe(manifest.version);
    // One @pulumi/pulumi and one pulumi-edis, and npm ls content with the tree (it fails on a conflicting copy or a
    // missing peer); no AWS SDK, an optional peer for a journal in S3 only (npm 11 exits 0 listing nothing, older npm 1).
    const ls = (name: string) => {
        const run = spawnSync("npm", ["ls", name, "--all", "--parseable"], { cwd: project, encoding: "utf8" });
        return { name, status: run.status, copies: run.stdout.trim().split("\n").filter(Boolean) };
    };
    expect(ls("@pulumi/pulumi")).toEqual({ name: "@pulumi/pulumi", status: 0, copies: [join(modules, "@pulumi", "pulumi")] });
    expect(ls("pulumi-edis")).toEqual({ name: "pulumi-edis", status: 0, copies: [join(modules, "pulumi-edis")] });
    expect(ls("@aws-sdk/client-s3").copies).toEqual([]);

    // The README's Quick start, unit test and jest config; the template's program stays as template.ts, compiled too.
    renameSync(join(project, "index.ts"), join(project, "template.ts"));
    writeFileSync(join(project, "index.ts"), docBlock("ts", 'new edis.KvmServer("web"'));
    writeFileSync(join(project, "index.test.ts"), docBlock("ts", "edisTesting.startTestAccount()"));
    writeFileSync(join(project, "jest.config.js"), docBlock("js", '"ts-jest"'));
    // Every TypeScript example of the reference pages compiles against the installed package too.
    const references = docBlocks("ts").filter((b) => b.file.startsWith("docs/reference/"));
    expect(references).toHaveLength(17);
    references.forEach((b, i) => writeFileSync(join(project, `reference-${i}.ts`), b.code));
    // The newest TypeScript 5, the 6.0 this repository pins, and the TypeScript 6 the template installs when it is another.
    const pinned = [join(PACKAGE_ROOT, "node_modules", "typescript"), join(PACKAGE_ROOT, "node_modules", "typescript-6")];
    const own = installed("typescript") === JSON.parse(readFileSync(join(pinned[1], "package.json"), "utf8")).version ? [] : [join(modules, "typescript")];
    const compiled = [...pinned, ...own].map((t) => tsc(t, project));
    for (const run of compiled) expect(run).toEqual({ version: expect.any(String), output: "", status: 0 });
    expect(compiled.map((r) => r.version).slice(0, 2)).toEqual([expect.stringMatching(/^5\.9\./), expect.stringMatching(/^6\.0\./)]);
    expect(installed("typescript")).toMatch(/^6\./);
    rmSync(join(project, "template.ts"));
    references.forEach((_, i) => rmSync(join(project, `reference-${i}.ts`)));

    // The unit test as the README runs it, and once more with a test that awaits nothing: both end with exit 0.
    const readmeTest = docBlock("ts", "edisTesting.startTestAccount()");
    const unawaited = readmeTest.replace(/test\("[^"]*", async \(\) => \{[\s\S]*\}\);\s*$/, 'test("imports the program only", async () => {\n    await import("./index.js");\n});\n');
    expect(unawaited).not.toBe(readmeTest);
    expect(unawaited).not.toContain("valueOf(infra");
    writeFileSync(join(project, "unawaited.test.ts"), unawaited);
    const unit = spawnSync(process.execPath, [join(modules, "jest", "bin", "jest.js")], { cwd: project, encoding: "utf8" });
    if (!unit.stderr.includes("Tests:       2 passed")) console.log(unit.stderr.slice(0, 4000));
    expect(unit.stderr).toContain("Tests:       2 passed, 2 total");
    expect(unit.stderr).not.toMatch(/ECONNREFUSED|error serializing/);
    expect(unit.status).toBe(0);

    const f = await open(project, { installed: true, config: { "edis:paymentMethod": "paypal", sshPublicKey: KEY } });
    const up = ok(await f.stack.up());
    expect(up.ops).toEqual({ web: ["create"] });
    expect(await f.stack.outputs()).toEqual({ kvmId: expect.stringMatching(/^kvm_/), apiHost: expect.stringMatching(/^kvm\d+\.api\.edis-sim\.invalid$/), planName: "KVM M", osName: "Debian 12 (64bit)" });
    expect(f.sim.account.state.services).toEqual([expect.objectContaining({ pid: 102, os: 1012, hostname: "web-1.example.com", sshPublicKey: KEY })]);
    // The template's Pulumi.yaml refreshes first (options.refresh: always): a plain preview is quiet.
    ok(await f.stack.preview(["--expect-no-changes"]));
    ok(await f.stack.destroy());
    expect(paidWrites(f.sim)).toEqual(["add/order", "cancel/product"]);
    await expectNoCredentials(f);
});
