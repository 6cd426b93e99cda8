/**
 * The catalogue lookups of the TypeScript SDK: what a program calls to choose what it orders, by name and by need.
 * Each is the core's lookup (provider/lookups/catalogue.ts, which the plugin serves too) on the account the program's
 * `edis:*` config names, with an Output form that takes Outputs (another lookup's result) and returns an Output.
 */
import * as pulumi from "@pulumi/pulumi";
import * as core from "../../provider/lookups/catalogue";
import type { Addon, GetAddonArgs, GetAddonResult, GetBillingCyclesResult, GetLocationArgs, GetLocationsResult, GetOperatingSystemArgs, GetOperatingSystemsResult, GetPaymentMethodsResult, GetPlanArgs, GetPlansArgs, GetPlansResult, Location, Plan, PlanRef } from "../../provider/lookups/catalogue";
import { lookup, outputOf } from "./context";

export type {
    Addon,
    GetAddonArgs,
    GetAddonResult,
    GetBillingCyclesResult,
    GetLocationArgs,
    GetLocationsResult,
    GetOperatingSystemArgs,
    GetOperatingSystemsResult,
    GetPaymentMethodsResult,
    GetPlanArgs,
    GetPlansArgs,
    GetPlansResult,
    Location,
    PaymentMethod,
    Plan,
    PlanFilters,
    PlanRef,
} from "../../provider/lookups/catalogue";

/** Every location: id, name and headline. */
export function getLocations(_args: Record<string, never> = {}, _opts?: pulumi.InvokeOptions): Promise<GetLocationsResult> {
    return lookup((account) => core.getLocations(account));
}
/** `getLocations` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getLocationsOutput = outputOf(getLocations);

/** One location by name or id; when none matches, the error lists the available names. */
export function getLocation(args: GetLocationArgs, _opts?: pulumi.InvokeOptions): Promise<Location> {
    return lookup((account) => core.getLocation(account, args));
}
/** `getLocation` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getLocationOutput = outputOf<GetLocationArgs, Location>(getLocation);

/** The plans of a location that satisfy the filters, cheapest first. */
export function getPlans(args: GetPlansArgs, _opts?: pulumi.InvokeOptions): Promise<GetPlansResult> {
    return lookup((account) => core.getPlans(account, args));
}
/** `getPlans` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getPlansOutput = outputOf<GetPlansArgs, GetPlansResult>(getPlans);

/** The named plan, or the cheapest that satisfies the filters; when none does, the error lists the nearest. */
export function getPlan(args: GetPlanArgs, _opts?: pulumi.InvokeOptions): Promise<Plan> {
    return lookup((account) => core.getPlan(account, args));
}
/** `getPlan` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getPlanOutput = outputOf<GetPlanArgs, Plan>(getPlan);

/** The operating-system add-ons of a plan. */
export function getOperatingSystems(args: PlanRef, _opts?: pulumi.InvokeOptions): Promise<GetOperatingSystemsResult> {
    return lookup((account) => core.getOperatingSystems(account, args));
}
/** `getOperatingSystems` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getOperatingSystemsOutput = outputOf<PlanRef, GetOperatingSystemsResult>(getOperatingSystems);

/** The plan's operating system that matches, with the highest version (Debian 12 over Debian 11). */
export function getOperatingSystem(args: GetOperatingSystemArgs, _opts?: pulumi.InvokeOptions): Promise<Addon> {
    return lookup((account) => core.getOperatingSystem(account, args));
}
/** `getOperatingSystem` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getOperatingSystemOutput = outputOf<GetOperatingSystemArgs, Addon>(getOperatingSystem);

/** One add-on of a plan by group and name; it is an error when the pattern matches none or several. */
export function getAddon(args: GetAddonArgs, _opts?: pulumi.InvokeOptions): Promise<GetAddonResult> {
    return lookup((account) => core.getAddon(account, args));
}
/** `getAddon` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getAddonOutput = outputOf<GetAddonArgs, GetAddonResult>(getAddon);

/** The billing cycles the account can order in (`get/billingcycles`). */
export function getBillingCycles(_args: Record<string, never> = {}, _opts?: pulumi.InvokeOptions): Promise<GetBillingCyclesResult> {
    return lookup((account) => core.getBillingCycles(account));
}
/** `getBillingCycles` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getBillingCyclesOutput = outputOf(getBillingCycles);

/** The account's payment methods (`get/paymentmethods`); an `id` is what KvmServer's paymentMethod takes. */
export function getPaymentMethods(_args: Record<string, never> = {}, _opts?: pulumi.InvokeOptions): Promise<GetPaymentMethodsResult> {
    return lookup((account) => core.getPaymentMethods(account));
}
/** `getPaymentMethods` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getPaymentMethodsOutput = outputOf(getPaymentMethods);
