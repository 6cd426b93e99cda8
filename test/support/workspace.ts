// A project as a user has it: outside the repo, pulumi-edis hard-linked under node_modules as npm installs it, so the
// provider host finds it only by package name and the serializer stores the `__provider` users store.
import { cpSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const PACKAGE_ROOT = resolve(__dirname, __dirname.includes(`${join("dist", "test")}`) ? "../../.." : "../..");

export interface Project {
    dir: string;
    name: string;
}

// Copies a program into a fresh project with this package linked in. `installed`: a real `npm install` filled it, used
// in place. `pulumiSdk`: another @pulumi/pulumi release to install (e.g. node_modules/pulumi-sdk-3.248).
export function createProject(programDir: string, workDir = mkdtempSync(join(tmpdir(), "edis-stack-")), installed = false, pulumiSdk?: string): Project {
    const dir = installed ? programDir : join(workDir, "project");
    if (!installed) {
        mkdirSync(dir, { recursive: true });
        cpSync(programDir, dir, { recursive: true, filter: (src) => !src.includes("node_modules") });
        const modules = join(dir, "node_modules");
        mkdirSync(join(modules, "@pulumi"), { recursive: true });
        installPackage(join(modules, "pulumi-edis"));
        // The provider plugin on node_modules/.bin, as npm puts a package's bins there (package.json "bin").
        mkdirSync(join(modules, ".bin"), { recursive: true });
        writeFileSync(join(modules, ".bin", "pulumi-resource-edis"), `#!/bin/sh\nexec node "${join(modules, "pulumi-edis", "dist", "provider", "plugin", "main.js")}" "$@"\n`, { mode: 0o755 });
        // The program shares the SDK's @pulumi/pulumi instance; deps and the optional S3 peer beside it, as npm hoists.
        const { dependencies, peerDependenciesMeta } = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; peerDependenciesMeta: Record<string, unknown> };
        for (const dependency of ["@pulumi/pulumi", ...Object.keys(dependencies), ...Object.keys(peerDependenciesMeta)]) {
            mkdirSync(dirname(join(modules, dependency)), { recursive: true });
            const from =
                dependency === "@pulumi/pulumi" && pulumiSdk ? pulumiSdk : dirname(require.resolve(`${dependency}/package.json`, { paths: [PACKAGE_ROOT] }));
            symlinkSync(from, join(modules, dependency), "dir");
        }
    }

    const yaml = readFileSync(join(dir, "Pulumi.yaml"), "utf8");
    const name = /^name:\s*["']?([^"'\s]+)/m.exec(yaml)?.[1];
    if (!name) throw new Error(`${programDir}/Pulumi.yaml has no name`);
    return { dir, name };
}

/** The files of package.json's `files` (the built ones), hard-linked into `dir`. */
function installPackage(dir: string): void {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { files: string[] };
    mkdirSync(dir, { recursive: true });
    linkSync(join(PACKAGE_ROOT, "package.json"), join(dir, "package.json"));
    for (const entry of manifest.files.filter((f) => f.startsWith("dist/"))) linkTree(join(PACKAGE_ROOT, entry), join(dir, entry));
    // The plugin's schema, which it serves and reads its resources' inputs from.
    linkSync(join(PACKAGE_ROOT, "schema.json"), join(dir, "schema.json"));
}

function linkTree(from: string, to: string): void {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from, { withFileTypes: true })) {
        if (entry.isDirectory()) linkTree(join(from, entry.name), join(to, entry.name));
        else linkSync(join(from, entry.name), join(to, entry.name));
    }
}

/** A test program's TypeScript as JavaScript, as Pulumi's ts-node runs it (transpile only, no type check). */
export function transpileProgram(source: string, fileName: string): string {
    const ts = require("typescript") as typeof import("typescript");
    const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, sourceMap: false };
    return ts.transpileModule(source, { fileName, compilerOptions }).outputText;
}

/** A program's stack config against a simulator, as the tests, the bench and the chaos campaign set it. */
export function stackConfigFor(sim: { stackConfig(): Record<string, string> }): Record<string, string> {
    return {
        ...sim.stackConfig(),
        "edis:paymentMethod": "paypal",
        "edis:provisioningPollSeconds": "0.1",
    };
}

/** The environment without what tells a provider that it runs in CI (CI, GITHUB_ACTIONS, ...). */
export function withoutCi(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return Object.fromEntries(Object.entries(env).filter(([k]) => !CI_VARIABLES.includes(k)));
}

const CI_VARIABLES = ["CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD", "CIRCLECI"];
