/** The SDK's catalogue lookups: the core's (provider/lookups/catalogue.ts) on the program's account, with Outputs. */
import * as core from "../../provider/lookups/catalogue";
import { outputOf, promiseOf } from "./context";

export type {
    Addon, GetAddonArgs, GetAddonResult, GetBillingCyclesResult, GetLocationArgs, GetLocationsResult, GetOperatingSystemArgs,
    GetOperatingSystemsResult, GetPaymentMethodsResult, GetPlanArgs, GetPlansArgs, GetPlansResult, Location, PaymentMethod, Plan, PlanFilters, PlanRef,
} from "../../provider/lookups/catalogue";

/** Every location: id, name and headline. @function */
export const getLocations = promiseOf(core.getLocations);
/** `getLocations` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getLocationsOutput = outputOf(getLocations);

/** One location by name or id; when none matches, the error lists the available names. @function */
export const getLocation = promiseOf(core.getLocation);
/** `getLocation` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getLocationOutput = outputOf(getLocation);

/** The plans of a location that satisfy the filters, cheapest first. @function */
export const getPlans = promiseOf(core.getPlans);
/** `getPlans` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getPlansOutput = outputOf(getPlans);

/** The named plan, or the cheapest that satisfies the filters; when none does, the error lists the nearest. @function */
export const getPlan = promiseOf(core.getPlan);
/** `getPlan` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getPlanOutput = outputOf(getPlan);

/** The operating-system add-ons of a plan. @function */
export const getOperatingSystems = promiseOf(core.getOperatingSystems);
/** `getOperatingSystems` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getOperatingSystemsOutput = outputOf(getOperatingSystems);

/** The plan's operating system that matches, with the highest version (Debian 12 over Debian 11). @function */
export const getOperatingSystem = promiseOf(core.getOperatingSystem);
/** `getOperatingSystem` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getOperatingSystemOutput = outputOf(getOperatingSystem);

/** One add-on of a plan by group and name; it is an error when the pattern matches none or several. @function */
export const getAddon = promiseOf(core.getAddon);
/** `getAddon` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getAddonOutput = outputOf(getAddon);

/** The billing cycles the account can order in (`get/billingcycles`). @function */
export const getBillingCycles = promiseOf(core.getBillingCycles);
/** `getBillingCycles` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getBillingCyclesOutput = outputOf(getBillingCycles);

/** The account's payment methods (`get/paymentmethods`); an `id` is what KvmServer's paymentMethod takes. @function */
export const getPaymentMethods = promiseOf(core.getPaymentMethods);
/** `getPaymentMethods` as an Output: its arguments may be Outputs (another lookup's result), and the result is an Output. */
export const getPaymentMethodsOutput = outputOf(getPaymentMethods);
