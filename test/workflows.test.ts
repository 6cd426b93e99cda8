// The GitHub workflows as a user's CI reads them: the real CLI from pulumi/actions (.ci/run keeps the Go build for
// machines without downloads); a version tag builds every artifact a Pulumi provider ships from one version.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const workflow = (name: string) => readFileSync(join(__dirname, "..", ".github", "workflows", name), "utf8");

test("the real-CLI workflow installs the CLI with pulumi/actions, pinned to the version .ci builds, and builds nothing of it from Go", () => {
    // The steps, without the comments that explain them.
    const e2e = workflow("e2e.yml").split("\n").filter((l) => !l.trimStart().startsWith("#")).join("\n");
    const pinned = /^PULUMI_VERSION="v([\d.]+)"$/m.exec(readFileSync(join(__dirname, "..", ".ci", "install-pulumi.sh"), "utf8"))![1];
    expect(e2e).toMatch(new RegExp(`uses: pulumi/actions@v\\d+\\n\\s+with:\\n\\s+pulumi-version: ${pinned.replace(/\./g, "\\.")}\\n`));
    expect(e2e).not.toContain("pulumi:install");
    expect(e2e).not.toContain("install-pulumi.sh");
    expect(e2e).toContain("npm run test:cli");
});

test("a version tag sets the version once, then builds the npm package, the plugin archives, the wheel and the Go SDK, and releases them", () => {
    const release = workflow("release.yml").split("\n").filter((l) => !l.trimStart().startsWith("#")).join("\n");
    expect(release).toMatch(/tags: \["v\*\.\*\.\*"\]/);
    const steps = ['npm version --no-git-tag-version "${GITHUB_REF_NAME#v}"', "npm run schema", "npm pack --ignore-scripts", "npm run plugins", "npm run sdks", "softprops/action-gh-release"];
    const at = steps.map((s) => release.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const asset of ["pulumi-edis-*.tgz", "plugins/pulumi-resource-edis-*.tar.gz", "sdks/python/dist/*.whl"]) expect(release).toContain(asset);
});
