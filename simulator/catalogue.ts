/** The simulator's catalogue, in the specification's shapes; a plan's figures exist once, in `PLANS`. */

/** The add-on group names of the specification, and the order-item field that takes an id of each. */
export const ADDON_GROUPS = {
    "operating system": "os",
    "additional ram": "additional_ram",
    "additional ip": "additional_ip",
    "additional drive boost": "additional_diskboost",
} as const;
export type SimAddonGroup = keyof typeof ADDON_GROUPS;

export interface SimAddon {
    id: number;
    description: string;
    /** EUR; absent for operating systems and the "no extra" entry. */
    monthly?: number;
}

export interface SimPlan {
    pid: number;
    name: string;
    locationId: number;
    cpu: number;
    ramMb: number;
    diskGb: number;
    trafficTb: number;
    monthly: number;
    addons: Partial<Record<SimAddonGroup, SimAddon[]>>;
}

export interface SimLocation {
    id: number;
    name: string;
    /** Absent or empty for some locations, as the specification allows. */
    headline?: string;
    code: string;
}

export const LOCATIONS: SimLocation[] = [
    { id: 1, name: "Frankfurt, Germany", headline: "DE-CIX, low latency to central Europe", code: "fra" },
    { id: 2, name: "Vienna, Austria", headline: "VIX, EDIS home network", code: "vie" },
    { id: 3, name: "London, United Kingdom", headline: "", code: "lon" },
    { id: 4, name: "Zurich, Switzerland", code: "zrh" },
];

const LINUX: SimAddon[] = [
    { id: 1011, description: "Debian 11 (64bit)" },
    { id: 1012, description: "Debian 12 (64bit)" },
    { id: 1022, description: "Ubuntu 22.04 LTS (64bit)" },
    { id: 1024, description: "Ubuntu 24.04 LTS (64bit)" },
    { id: 1039, description: "AlmaLinux 9 (64bit)" },
];
const WINDOWS: SimAddon[] = [{ id: 1122, description: "Windows Server 2022 Standard (64bit)" }];
const RAM: SimAddon[] = [
    { id: 2000, description: "no additional RAM" },
    { id: 2001, description: "+1024 MB RAM", monthly: 2 },
    { id: 2002, description: "+2048 MB RAM", monthly: 4 },
];
const IP: SimAddon[] = [
    { id: 2200, description: "no additional IP" },
    { id: 2201, description: "+1 IPv4 Address", monthly: 1.5 },
];
const DRIVE_BOOST: SimAddon[] = [
    { id: 2300, description: "no drive boost" },
    { id: 2301, description: "Drive boost +20 GByte", monthly: 1 },
    { id: 2302, description: "Drive boost +50 GByte", monthly: 2.25 },
];

const SIZES = [
    { name: "KVM S", cpu: 1, ramMb: 1024, diskGb: 20, trafficTb: 2, monthly: 4.5, windows: false, driveBoost: false },
    { name: "KVM M", cpu: 2, ramMb: 2048, diskGb: 40, trafficTb: 4, monthly: 8, windows: true, driveBoost: true },
    { name: "KVM L", cpu: 4, ramMb: 4096, diskGb: 80, trafficTb: 8, monthly: 15, windows: true, driveBoost: true },
    { name: "KVM XL", cpu: 8, ramMb: 8192, diskGb: 160, trafficTb: 16, monthly: 28, windows: true, driveBoost: true },
];

/** Each location sells each size under its own pid (location * 100 + size), as add/upgrade needs. */
export const PLANS: SimPlan[] = LOCATIONS.flatMap((loc) =>
    SIZES.map(({ windows, driveBoost, ...size }, i): SimPlan => {
        const factor = loc.code === "lon" ? 1.1 : loc.code === "zrh" ? 1.2 : 1;
        const addons: SimPlan["addons"] = { "operating system": [...LINUX, ...(windows ? WINDOWS : [])], "additional ram": RAM };
        if (loc.code !== "zrh") addons["additional ip"] = IP;
        if (driveBoost) addons["additional drive boost"] = DRIVE_BOOST;
        return { pid: loc.id * 100 + i + 1, ...size, locationId: loc.id, monthly: Math.round(size.monthly * factor * 100) / 100, addons };
    }),
);

export const BILLING_CYCLE_MONTHS: Record<string, number> = { monthly: 1, quarterly: 3, semiannually: 6, annually: 12 };
const CYCLE_DISCOUNT: Record<string, number> = { monthly: 1, quarterly: 0.97, semiannually: 0.94, annually: 0.9 };
export const CURRENCY = "EUR";

export function priceFor(monthly: number, cycle: string): number | undefined {
    if (!(cycle in BILLING_CYCLE_MONTHS)) return undefined;
    return Math.round(monthly * BILLING_CYCLE_MONTHS[cycle] * CYCLE_DISCOUNT[cycle] * 100) / 100;
}

const money = (amount: number) => ({ amount: amount.toFixed(2), currency: CURRENCY });

export function wireLocations() {
    return Object.fromEntries(LOCATIONS.map((l) => [l.name, l.headline === undefined ? { id: l.id } : { id: l.id, headline: l.headline }]));
}

function wireAddon(a: SimAddon) {
    return a.monthly === undefined ? { id: a.id, description: a.description } : { id: a.id, description: a.description, price: { monthly: money(a.monthly) } };
}

export function wireProducts(plans: SimPlan[], locationId: number) {
    return Object.fromEntries(
        plans.filter((p) => p.locationId === locationId).map((p) => [
            p.name,
            {
                id: p.pid,
                description: {
                    disk: { size: p.diskGb, unit: "GByte" },
                    ram: { size: p.ramMb, unit: "MByte" },
                    cpu: { size: p.cpu, unit: "core/socket" },
                    traffic: { size: p.trafficTb, unit: "TByte" },
                    price: Object.fromEntries(Object.keys(BILLING_CYCLE_MONTHS).map((cycle) => [cycle, money(priceFor(p.monthly, cycle)!)])),
                },
                addons: Object.fromEntries(
                    Object.entries(p.addons).map(([group, addons]) => [group, Object.fromEntries(addons.map((a) => [String(a.id), wireAddon(a)]))]),
                ),
            },
        ]),
    );
}

export function addonOf(plan: SimPlan, group: SimAddonGroup, id: number): SimAddon | undefined {
    return plan.addons[group]?.find((a) => a.id === id);
}

export const PAYMENT_METHODS = [
    { module: "credit", displayname: "Account credit" },
    { module: "paypal", displayname: "PayPal" },
    { module: "banktransfer", displayname: "Bank transfer" },
];
