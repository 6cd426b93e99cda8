// The documentation's programs as written: TypeScript blocks type-checked against the SDK; docs/_index.md's Python and
// YAML are the real-CLI tests' examples word for word (the Quick start runs in test/cli/examples.cli.test.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DOC_FILES, docBlocks, docText } from "./support/docs";

const ROOT = join(__dirname, "..");

test("every TypeScript block of the documentation type-checks against the SDK", () => {
    const blocks = docBlocks("ts");
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    // Written into one directory, the Quick start as its index.ts, as the unit-test guide has them.
    const dir = join(__dirname, ".doc-blocks");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const quickStart = blocks.find((b) => b.file === "README.md" && b.code.includes('new edis.KvmServer("web"'))!.code;
    writeFileSync(join(dir, "index.ts"), quickStart);
    blocks.forEach(({ code }, i) => writeFileSync(join(dir, `block-${i}.ts`), `${code}\nexport {};\n`));
    const tsconfig = join(dir, "tsconfig.json");
    writeFileSync(tsconfig, JSON.stringify({ extends: "../../tsconfig.test.json", include: ["*.ts"] }));
    try {
        execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", tsconfig], { encoding: "utf8" });
    } catch (e) {
        const where = blocks.map((b, i) => `block-${i}.ts: ${b.file}`).join("\n");
        throw new Error(`a documentation block does not compile:\n${(e as { stdout?: string }).stdout}\n${where}`);
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test("the overview's Python and YAML programs are the examples the real-CLI tests run, word for word", () => {
    const index = "docs/_index.md";
    expect(docBlocks("python").filter((b) => b.file === index).map((b) => b.code)).toEqual([readFileSync(join(ROOT, "examples", "python", "__main__.py"), "utf8")]);
    expect(docBlocks("yaml").filter((b) => b.file === index).map((b) => b.code)).toEqual([readFileSync(join(ROOT, "examples", "yaml", "Pulumi.yaml"), "utf8")]);
});

test("the README is at most 200 lines; docs/ has the Registry's two pages with their front matter, and every relative link resolves", () => {
    expect(docText("README.md").split("\n").length).toBeLessThanOrEqual(200);
    for (const page of ["docs/_index.md", "docs/installation-configuration.md"]) {
        expect(DOC_FILES).toContain(page);
        expect(docText(page)).toMatch(/^---\ntitle: .+\nmeta_desc: .+\nlayout: package\n---\n/);
    }
    const broken: string[] = [];
    for (const file of DOC_FILES) {
        for (const m of docText(file).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
            if (/^[a-z]+:/.test(m[1])) continue;
            if (!existsSync(join(ROOT, file, "..", m[1]))) broken.push(`${file}: ${m[1]}`);
        }
    }
    expect(broken).toEqual([]);
});

test("CONTRIBUTING.md lists every admin route of the simulator with its method, and the docs quote what the engine says to a dynamic import", () => {
    const server = readFileSync(join(ROOT, "simulator", "server.ts"), "utf8");
    const routes = new Set<string>();
    for (const m of server.matchAll(/route === "(GET|POST|DELETE) (\/_sim\/[a-z-]+)"/g)) routes.add(`${m[1]} ${m[2]}`);
    for (const m of server.matchAll(/method === "(POST)" && \/\^\\\/_sim\\\/([a-z]+)\\\/\\d\+\\\/([a-z()|/\\]+)\$\//g)) {
        for (const tail of m[3].replace(/[()\\]/g, "").split("|")) routes.add(`${m[1]} /_sim/${m[2]}/ID/${tail}`);
    }
    expect(routes.size).toBeGreaterThanOrEqual(12);
    const contributing = docText("CONTRIBUTING.md");
    const missing = [...routes].filter((r) => {
        const [method, path] = r.split(" ");
        const last = path.split("/").pop()!;
        return !new RegExp(`\`${method} ${path.replace(/\/[^/]+$/, "").replace(/[/]/g, "\\/")}\\/[^\`]*${last}`).test(contributing) && !contributing.includes(`\`${method} ${path}\``) && !contributing.includes(`.../${last}\``);
    });
    expect(missing).toEqual([]);
    // identity.cli.test.ts asserts these words from the real CLI.
    expect(docText("docs/_index.md")).toContain('"code must be a string, not undefined"');
});

test("the documentation runs this package's bins only through a launcher that cannot fetch them from a registry (--no-install)", () => {
    const examples = readdirSync(join(ROOT, "examples"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join("examples", e.name, "README.md"));
    const files = [...DOC_FILES, "CHANGELOG.md", ...examples.filter((f) => existsSync(join(ROOT, f)))];
    const launcher = /\b(?:npx|npm exec|npm x|pnpm dlx|yarn dlx|bunx)((?: -[^\s`]+(?: [^\s`-][^\s`]*)?)*) pulumi-(?:edis|resource-edis)/g;
    const fetching = files.flatMap((file) => {
        const text = docText(file).replace(/\s+/g, " ");
        return [...text.matchAll(launcher)]
            .filter((m) => !/\s--no(-install)?\b/.test(m[1]) && !text.slice(0, m.index).endsWith("never `"))
            .map((m) => `${file}: ${m[0]}`);
    });
    expect(fetching).toEqual([]);
});
