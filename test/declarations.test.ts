// The public types as a user's project sees them, with `pulumi new typescript`'s tsconfig (no esModuleInterop, no
// skipLibCheck). tsc runs on the Node that runs jest, so CI checks it on every Node line.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { PACKAGE_ROOT, createProject } from "./support/workspace";

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };

/** Every declaration file reachable from `entry`, with the modules each imports by bare name. */
function declarationGraph(entry: string): Map<string, string[]> {
    const graph = new Map<string, string[]>();
    const visit = (file: string) => {
        if (graph.has(file)) return;
        const bare: string[] = [];
        graph.set(file, bare);
        // Comments quote code (`require("pulumi-edis/provider")` in a doc comment): only declarations count.
        const text = readFileSync(file, "utf8")
            .replace(/\/\*[\s\S]*?\*\//g, "")
            .replace(/^\s*\/\/(?!\/\s*<reference).*$/gm, "");
        for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|reference\s+types\s*=\s*)["']([^"']+)["']/g)) {
            const spec = m[1];
            if (!spec.startsWith(".")) {
                bare.push(spec);
                continue;
            }
            const base = resolve(dirname(file), spec.replace(/\.js$/, ""));
            const next = [`${base}.d.ts`, join(base, "index.d.ts")].find(existsSync);
            if (!next) throw new Error(`${relative(PACKAGE_ROOT, file)} imports ${spec}, which has no declaration file`);
            visit(next);
        }
    };
    visit(entry);
    return graph;
}

const entries = Object.values(manifest.exports)
    .map((e) => (typeof e === "string" ? undefined : e.types))
    .filter((t): t is string => t !== undefined);

test("the declaration files of every entry point name no module but @pulumi/pulumi's and Node's", () => {
    expect(entries).toEqual(expect.arrayContaining(["./dist/sdk/index.d.ts", "./dist/sdk/testing.d.ts"]));
    const node = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const foreign: string[] = [];
    for (const entry of entries) {
        for (const [file, bare] of declarationGraph(join(PACKAGE_ROOT, entry))) {
            for (const spec of bare) {
                if (spec === "@pulumi/pulumi" || spec.startsWith("@pulumi/pulumi/") || node.has(spec)) continue;
                foreign.push(`${relative(PACKAGE_ROOT, file)} -> ${spec}`);
            }
        }
    }
    // zod's own declarations need esModuleInterop; any other dependency's could need something else.
    expect(foreign).toEqual([]);
});

/** The tsconfig.json that `pulumi new typescript` writes (github.com/pulumi/templates, typescript/). */
const PULUMI_NEW_TSCONFIG = {
    compilerOptions: {
        strict: true,
        outDir: "bin",
        target: "es2020",
        module: "nodenext",
        moduleResolution: "nodenext",
        sourceMap: true,
        experimentalDecorators: true,
        pretty: true,
        noFallthroughCasesInSwitch: true,
        noImplicitReturns: true,
        forceConsistentCasingInFileNames: true,
    },
    files: ["promises.ts"],
};
/** What older `pulumi new typescript` templates wrote: node10 resolution, still without esModuleInterop or skipLibCheck. */
const OLDER_TSCONFIG = { ...PULUMI_NEW_TSCONFIG, compilerOptions: { ...PULUMI_NEW_TSCONFIG.compilerOptions, module: "commonjs", moduleResolution: "node" } };

const TYPESCRIPTS = [
    { name: "TypeScript 5.9", tsc: join(PACKAGE_ROOT, "node_modules", "typescript", "bin", "tsc"), tsconfigs: { "pulumi new": PULUMI_NEW_TSCONFIG, older: OLDER_TSCONFIG } },
    // TypeScript 6 refuses node10 resolution itself ("moduleResolution=node10 is deprecated"): only the current template.
    { name: "TypeScript 6.0", tsc: join(PACKAGE_ROOT, "node_modules", "typescript-6", "bin", "tsc"), tsconfigs: { "pulumi new": PULUMI_NEW_TSCONFIG } },
];

const work = mkdtempSync(join(tmpdir(), "edis-types-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const project = createProject(join(__dirname, "types"), work);

describe.each(TYPESCRIPTS)("$name", ({ tsc, tsconfigs }) => {
    test.each(Object.entries(tsconfigs))("compiles the type-level promises with the %s tsconfig", (name, tsconfig) => {
        const version = JSON.parse(readFileSync(join(dirname(tsc), "..", "package.json"), "utf8")).version as string;
        expect(version).toMatch(tsc.includes("typescript-6") ? /^6\./ : /^5\.9\./);
        const file = join(project.dir, `tsconfig.${name.replace(/\s/g, "-")}.json`);
        writeFileSync(file, JSON.stringify(tsconfig, null, 2));
        const run = spawnSync(process.execPath, [tsc, "--noEmit", "--pretty", "false", "-p", file], { cwd: project.dir, encoding: "utf8" });
        expect(run.stdout + run.stderr).toBe("");
        expect(run.status).toBe(0);
    });
});
