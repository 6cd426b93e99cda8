/**
 * A program and pulumi-edis must share one `@pulumi/pulumi`: two fail far from the cause (`resp.getUnknown is not a
 * function` under `setMocks`). A linked copy (`npm link`, `file:`) loads the one beside its sources, so it refuses to
 * run when the program's entry module resolves another; an installed copy shares the program's.
 */
import { realpathSync } from "node:fs";
import { dirname, sep } from "node:path";

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
