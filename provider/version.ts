import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The package's root: above dist/provider/ when built, above provider/ under ts-jest (and the same for .ci/). */
export const PACKAGE_ROOT = [join(__dirname, ".."), join(__dirname, "..", "..")].find((d) => existsSync(join(d, "package.json"))) ?? join(__dirname, "..", "..");

/** This package's version, as its package.json says (the bins' `--version`, the client's User-Agent, the plugin). */
export function packageVersion(): string {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
}
