// Engine behaviour the provider must live with, via the real CLI: a failing refresh stops the whole command (so no Read
// may throw for an optional reading); `KvmServer.get` on the oldest and newest @pulumi/pulumi the peer range allows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../support/workspace";
import { clientFor, orderProvisioned } from "../support/sim";
import { cliStacksPerTest, ok, paidWrites } from "./support";

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"));

const open = cliStacksPerTest();

describe.each([
    { release: "the oldest the peer range allows", sdk: join(PACKAGE_ROOT, "node_modules", "pulumi-sdk-3.248") },
    { release: "this repository's own", sdk: join(PACKAGE_ROOT, "node_modules", "@pulumi", "pulumi") },
])("KvmServer.get on @pulumi/pulumi $release", ({ sdk }) => {
    test("reads the server and gives a value to every output its result types; refresh and destroy leave the server alone", async () => {
        const version = JSON.parse(readFileSync(join(sdk, "package.json"), "utf8")).version as string;
        if (sdk.includes("pulumi-sdk-")) expect(manifest.peerDependencies["@pulumi/pulumi"]).toBe(`^${version}`);
        const f = await open(join(PACKAGE_ROOT, "test", "programs", "reading"), { pulumiSdk: sdk, sim: { provisioningDelayMs: 0 } });
        const { serviceId, kvmId } = await orderProvisioned(clientFor(f.sim), "seen.example.com");
        await f.stack.setConfig({ "edis-reading:serviceId": String(serviceId) });
        expect(JSON.parse(readFileSync(join(f.stack.project.dir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version).toBe(version);

        const up = ok(await f.stack.up());
        expect(up.ops).toEqual({ seen: ["read"] });
        const reading = (await f.stack.outputs()).reading as Record<string, unknown>;
        expect(reading).toEqual({
            serviceId,
            kvmId,
            apiHost: expect.stringMatching(/\.edis-sim\.invalid$/),
            apiRdns: expect.stringMatching(/\.edis-sim\.invalid$/),
            description: "seen.example.com",
            suspended: false,
            lps: expect.any(String),
            lpsIsPremium: expect.any(Boolean),
        });
        ok(await f.stack.refresh());
        ok(await f.stack.destroy());
        expect(paidWrites(f.sim)).toEqual(["add/order"]);
    });
});
