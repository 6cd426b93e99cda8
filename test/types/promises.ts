// What the package's types promise a program, checked by tsc (test/declarations.test.ts) with the tsconfig of
// `pulumi new typescript`. Each `@ts-expect-error` line must be an error: were it accepted, tsc would fail on
// the unused directive. ts-jest only transpiles, so none of this could be checked inside jest.
import * as pulumi from "@pulumi/pulumi";
import * as edis from "pulumi-edis";
import * as edisTesting from "pulumi-edis/testing";

// The Output forms take the same required arguments as the Promise forms, each as an Input.
const location = edis.getLocationOutput({ name: "Frankfurt" });
const plan = edis.getPlanOutput({ locationId: location.id, minRamMb: 2048 });
const os = edis.getOperatingSystemOutput({ locationId: location.id, planId: plan.id, nameRegex: "^Debian" });
edis.getAddonOutput({ locationId: location.id, planId: plan.id, group: "additional ram", nameRegex: "1 GB" });
edis.getLocationsOutput();
edis.getBillingCyclesOutput();
// @ts-expect-error getPlanOutput needs locationId
edis.getPlanOutput();
// @ts-expect-error getPlanOutput needs locationId
edis.getPlanOutput({ minRamMb: 2048 });
// @ts-expect-error getPlansOutput needs locationId
edis.getPlansOutput({});
// @ts-expect-error getOperatingSystemOutput needs planId
edis.getOperatingSystemOutput({ locationId: location.id, nameRegex: "^Debian" });
// @ts-expect-error getOperatingSystemsOutput needs its plan
edis.getOperatingSystemsOutput();
// @ts-expect-error getAddonOutput needs a group
edis.getAddonOutput({ locationId: 1, planId: 102, nameRegex: "x" });
// @ts-expect-error getKvmSessionOutput needs a kvmId
edis.getKvmSessionOutput({});
// @ts-expect-error getKvmIdOutput needs its arguments
edis.getKvmIdOutput();
// @ts-expect-error getServiceIdOutput needs its arguments
edis.getServiceIdOutput();

// Typed values, not strings: a billing cycle and an add-on group outside the lists are refused.
// @ts-expect-error "weekly" is not a billing cycle
edis.getPlan({ locationId: 1, billingCycle: "weekly" });
edis.getPlan({ locationId: 1, billingCycle: "semi-annually" });
// @ts-expect-error "additional disk" is not an add-on group
edis.getAddon({ locationId: 1, planId: 102, group: "additional disk", nameRegex: "x" });

// A KvmServer needs its plan, OS and host name; credentials are never inputs.
const server = new edis.KvmServer("web", { planId: plan.id, osId: os.id, hostname: "web-1.example.com" });
// @ts-expect-error hostname is required
new edis.KvmServer("bad", { planId: 102, osId: 1012 });
// @ts-expect-error the password is config (edis:password), never an input
new edis.KvmServer("bad2", { planId: 102, osId: 1012, hostname: "x.example.com", password: "p" });
const kvmId: pulumi.Output<string> = server.kvmId;

// KvmServer.get types only what EDIS reports for any server.
const seen = edis.KvmServer.get("seen", "1003");
const seenKvm: pulumi.Output<string> = seen.kvmId;
const seenHost: pulumi.Output<string | undefined> = seen.apiHost;
// @ts-expect-error EDIS has no call that returns the plan a server was ordered with
seen.planId;
// @ts-expect-error nor its host name
seen.hostname;
new edis.VncAccess("console", { kvmId: seen.kvmId, password: "abcd1234" }, { dependsOn: [seen] });

const mocks: pulumi.runtime.Mocks = edisTesting.mocks();
async function unitTest(): Promise<void> {
    const account: edisTesting.TestAccount = await edisTesting.startTestAccount();
    await account.stop();
}

export { kvmId, seenKvm, seenHost, mocks, unitTest };
