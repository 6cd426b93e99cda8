/** This package's version, as its package.json says (the bins' `--version`, the client's User-Agent, the plugin). */
export function packageVersion(): string {
    // dist/provider/version.js and, under ts-jest, provider/version.ts: the package root is two or one level up.
    for (const manifest of ["../../package.json", "../package.json"]) {
        try {
            const { name, version } = require(manifest) as { name?: string; version?: string };
            if (name === "pulumi-edis" && version) return version;
        } catch {}
    }
    return "unknown";
}
