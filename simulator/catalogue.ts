/**
 * The simulator's catalogue, in the wire shape it answers. Where the vendor leaves a shape open, the choice
 * made here is one plausible answer (WHMCS-style, as the rest of the API is) and the client stays tolerant:
 * - products carry a free-text `description` ("2 vCPU Cores, 2048 MB RAM, ...") from which figures are read;
 * - prices sit under `pricing`, two-decimal strings per cycle plus `currency`; "-1.00" marks a cycle not sold;
 * - add-on groups are keyed by the order document's field names (`os`, `additional_ram`, ...), each a map of
 *   add-on id to `{name, pricing}`; one location also offers a group this client does not know (`backup`).
 */

export interface SimAddon {
    name: string;
    monthly: number;
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
    /** Cycles this plan is not sold in. */
    notSoldIn?: string[];
    addons: Record<string, Record<number, SimAddon>>;
}

export interface SimLocation {
    id: number;
    name: string;
    headline: string;
    country: string;
    code: string;
}

export const LOCATIONS: SimLocation[] = [
    { id: 1, name: "Frankfurt, Germany", headline: "DE-CIX, low latency to central Europe", country: "DE", code: "fra" },
    { id: 2, name: "Vienna, Austria", headline: "VIX, EDIS home network", country: "AT", code: "vie" },
    { id: 3, name: "London, United Kingdom", headline: "LINX, Docklands", country: "GB", code: "lon" },
    { id: 4, name: "Zurich, Switzerland", headline: "SwissIX, Swiss privacy law", country: "CH", code: "zrh" },
];

const LINUX: Record<number, SimAddon> = {
    1011: { name: "Debian 11 (64bit)", monthly: 0 },
    1012: { name: "Debian 12 (64bit)", monthly: 0 },
    1022: { name: "Ubuntu 22.04 LTS (64bit)", monthly: 0 },
    1024: { name: "Ubuntu 24.04 LTS (64bit)", monthly: 0 },
    1039: { name: "AlmaLinux 9 (64bit)", monthly: 0 },
};
const WINDOWS: Record<number, SimAddon> = {
    1122: { name: "Windows Server 2022 Standard (64bit)", monthly: 12 },
};
const COMMON_ADDONS: Record<string, Record<number, SimAddon>> = {
    additional_ram: { 2001: { name: "+1024 MB RAM", monthly: 2 }, 2002: { name: "+2048 MB RAM", monthly: 4 } },
    additional_vcpu: { 2101: { name: "+1 vCPU Core", monthly: 2.5 }, 2102: { name: "+2 vCPU Cores", monthly: 5 } },
    additional_ip: { 2201: { name: "+1 IPv4 Address", monthly: 1.5 } },
    additional_diskboost: { 2301: { name: "Disk boost +20 GB SSD", monthly: 1 }, 2302: { name: "Disk boost +50 GB SSD", monthly: 2.25 } },
};

const SIZES = [
    { name: "KVM S", cpu: 1, ramMb: 1024, diskGb: 20, trafficTb: 2, monthly: 4.5, windows: false },
    { name: "KVM M", cpu: 2, ramMb: 2048, diskGb: 40, trafficTb: 4, monthly: 8, windows: true },
    { name: "KVM L", cpu: 4, ramMb: 4096, diskGb: 80, trafficTb: 8, monthly: 15, windows: true },
    { name: "KVM XL", cpu: 8, ramMb: 8192, diskGb: 160, trafficTb: 16, monthly: 28, windows: true },
];

/** Each location sells each size under its own pid (location * 100 + size), as add/upgrade needs. */
export const PLANS: SimPlan[] = LOCATIONS.flatMap((loc) =>
    SIZES.map((size, i): SimPlan => {
        // London prices a little higher; its smallest plan is not sold yearly; Zurich has a backup group.
        const factor = loc.code === "lon" ? 1.1 : loc.code === "zrh" ? 1.2 : 1;
        const addons: SimPlan["addons"] = {
            os: { ...LINUX, ...(size.windows ? WINDOWS : {}) },
            ...COMMON_ADDONS,
        };
        if (loc.code === "zrh") addons.backup = { 2401: { name: "Daily backups, 7 days", monthly: 3 } };
        return {
            pid: loc.id * 100 + i + 1,
            name: size.name,
            locationId: loc.id,
            cpu: size.cpu,
            ramMb: size.ramMb,
            diskGb: size.diskGb,
            trafficTb: size.trafficTb,
            monthly: Math.round(size.monthly * factor * 100) / 100,
            notSoldIn: loc.code === "lon" && i === 0 ? ["annually"] : undefined,
            addons,
        };
    }),
);

export const BILLING_CYCLE_MONTHS: Record<string, number> = { monthly: 1, quarterly: 3, semiannually: 6, annually: 12 };
const CYCLE_DISCOUNT: Record<string, number> = { monthly: 1, quarterly: 0.97, semiannually: 0.94, annually: 0.9 };

/** The price of `monthly` for a cycle, or undefined when not sold; same rule for plans and add-ons. */
export function priceFor(monthly: number, cycle: string, notSoldIn: string[] = []): number | undefined {
    if (!(cycle in BILLING_CYCLE_MONTHS) || notSoldIn.includes(cycle)) return undefined;
    return Math.round(monthly * BILLING_CYCLE_MONTHS[cycle] * CYCLE_DISCOUNT[cycle] * 100) / 100;
}

function wirePricing(monthly: number, notSoldIn?: string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const cycle of Object.keys(BILLING_CYCLE_MONTHS)) {
        const p = priceFor(monthly, cycle, notSoldIn);
        out[cycle] = p === undefined ? "-1.00" : p.toFixed(2);
    }
    return out;
}

export function wireLocations() {
    return Object.fromEntries(LOCATIONS.map((l) => [l.name, { id: l.id, headline: l.headline, country: l.country }]));
}

export function wireProducts(locationId: number) {
    return Object.fromEntries(
        PLANS.filter((p) => p.locationId === locationId).map((p) => [
            p.name,
            {
                id: p.pid,
                description: `${p.cpu} vCPU Core${p.cpu > 1 ? "s" : ""}, ${p.ramMb} MB RAM, ${p.diskGb} GB SSD Storage, ${p.trafficTb} TB Traffic`,
                pricing: { currency: "EUR", ...wirePricing(p.monthly, p.notSoldIn) },
                addons: Object.fromEntries(
                    Object.entries(p.addons).map(([group, addons]) => [
                        group,
                        Object.fromEntries(
                            Object.entries(addons).map(([id, a]) => [id, { name: a.name, pricing: wirePricing(a.monthly) }]),
                        ),
                    ]),
                ),
            },
        ]),
    );
}

export function planById(pid: number): SimPlan | undefined {
    return PLANS.find((p) => p.pid === pid);
}

export const PAYMENT_METHODS = [
    { module: "credit", displayname: "Account credit" },
    { module: "paypal", displayname: "PayPal" },
    { module: "banktransfer", displayname: "Bank transfer" },
];
