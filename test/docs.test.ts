// `npm run docs` (TypeDoc) treats an export or field without a doc comment as an error: this fails if one is missing.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

test("the API reference builds without a warning and has a page for the resource, every lookup form and the testing entry", () => {
    const out = mkdtempSync(join(tmpdir(), "edis-docs-"));
    try {
        const run = spawnSync(process.execPath, [join(__dirname, "..", "node_modules", "typedoc", "bin", "typedoc"), "--out", out], { cwd: join(__dirname, ".."), encoding: "utf8" });
        expect({ status: run.status, output: `${run.stdout}${run.stderr}`.replace(/\u001b\[\d+m/g, "").trim() }).toEqual({ status: 0, output: `[info] html generated at ${out}` });
        const pages = ["classes/index.KvmServer.html", "functions/index.getPlan.html", "variables/index.getPlanOutput.html", "interfaces/index.KvmServerArgs.html", "functions/testing.startTestAccount.html"];
        expect(pages.filter((page) => !existsSync(join(out, page)))).toEqual([]);
    } finally {
        rmSync(out, { recursive: true, force: true });
    }
});
