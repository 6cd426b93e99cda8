// What `npm install pulumi-edis` gets: the packed tarball's contents, checked as npm would pack it.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

function packed(): { files: string[]; size: number; unpackedSize: number } {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" });
    const [entry] = JSON.parse(out);
    return { files: entry.files.map((f: { path: string }) => f.path), size: entry.size, unpackedSize: entry.unpackedSize };
}

test("the tarball holds the licence, the README, every export and bin, and nothing of the tests, examples or bench", () => {
    const { files, size } = packed();
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
    for (const target of Object.values(pkg.exports as Record<string, string | Record<string, string>>)) {
        for (const file of typeof target === "string" ? [target] : Object.values(target)) expect(files).toContain(file.replace(/^\.\//, ""));
    }
    for (const bin of Object.values(pkg.bin as Record<string, string>)) expect(files).toContain(bin);
    expect(files.filter((f) => /^dist\/(test|examples|bench)\//.test(f))).toEqual([]);
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toContain("Apache License\n                           Version 2.0");
    // 0.46 MB with the provider plugin and its schema (40 KB), and the readers of answers and echoes (issue 30).
    expect(size).toBeLessThan(480_000);
});

test("every source map carries its sources, so a stack trace into the package can be read", () => {
    const maps = packed().files.filter((f) => f.endsWith(".js.map"));
    expect(maps.length).toBeGreaterThan(20);
    for (const map of maps) {
        const { sources, sourcesContent } = JSON.parse(readFileSync(join(ROOT, map), "utf8"));
        expect({ map, complete: sourcesContent?.length === sources.length && sourcesContent.every((s: unknown) => typeof s === "string") }).toEqual({ map, complete: true });
    }
});

test("the bins start with a shebang", () => {
    for (const bin of Object.values(pkg.bin as Record<string, string>)) expect(readFileSync(join(ROOT, bin), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
});

test("both bins answer --version and --help, and an unknown option gets the usage and exit 2, not a stack trace", () => {
    for (const [name, bin] of Object.entries(pkg.bin as Record<string, string>)) {
        const run = (args: string[]) => spawnSync(process.execPath, [join(ROOT, bin), ...args], { encoding: "utf8", timeout: 300_000 });
        const version = run(["--version"]);
        expect({ name, status: version.status, out: version.stdout.trim() }).toEqual({ name, status: 0, out: `${name} ${pkg.version}` });
        const help = run(["--help"]);
        expect({ name, status: help.status }).toEqual({ name, status: 0 });
        expect(help.stdout).toContain(`usage: ${name}`);
        const unknown = run(["--no-such-option"]);
        expect({ name, status: unknown.status }).toEqual({ name, status: 2 });
        const said = unknown.stdout + unknown.stderr;
        expect(said).toContain("Unknown option '--no-such-option'");
        expect(said).toContain(`usage: ${name}`);
        expect(said).not.toMatch(/\n\s+at /);
    }
});
