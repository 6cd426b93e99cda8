/**
 * A program and pulumi-edis must share one `@pulumi/pulumi`. A linked pulumi-edis (`npm link`, or `file:` to
 * a checkout) loads the one beside its own sources instead, and two copies fail far from the cause: resources
 * registered with one copy's runtime are answered by the other's (`resp.getUnknown is not a function` under
 * `setMocks`). So a linked copy checks, when the program loads it, which `@pulumi/pulumi` the program loads
 * (resolved from the program's entry module: under `pulumi`, the `cmd/run` of the program's own @pulumi/pulumi;
 * under jest, the test file; else the working directory), and refuses to run with two, saying which and what
 * to do. An installed copy (under node_modules) shares the program's by npm's own resolution and is not checked.
 */
import { realpathSync } from "node:fs";
import { dirname, sep } from "node:path";

/** The directory of the `@pulumi/pulumi` that `require` finds from `from` (a directory), or undefined. */
function sdkSeenFrom(from: string): string | undefined {
    try {
        return realpathSync(dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [from] })));
    } catch {
        return undefined;
    }
}

/** Throws when this package is linked and the program (resolving from `from`) loads another `@pulumi/pulumi`. */
export function checkOneSdk(): void {
    const here = realpathSync(__dirname);
    const from = require.main ? dirname(require.main.filename) : process.cwd();
    if (here.split(sep).includes("node_modules")) return;
    const ours = sdkSeenFrom(here);
    const theirs = sdkSeenFrom(from);
    if (!ours || !theirs || ours === theirs) return;
    throw new Error(
        `pulumi-edis is linked from ${here} (npm link, or file: to a directory), so it loads @pulumi/pulumi from ` +
            `${ours}, while the program loads it from ${theirs}. Two copies of @pulumi/pulumi cannot run one ` +
            `program (resources registered with one are answered by the other). Install the package instead: \`npm pack\` in ` +
            `the pulumi-edis checkout, then \`npm install <path>/pulumi-edis-<version>.tgz\` in the project; afterwards ` +
            `\`npm ls @pulumi/pulumi\` shows one copy.`,
    );
}
