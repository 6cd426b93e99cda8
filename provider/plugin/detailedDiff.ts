/** The per-property diff the plugin reports: the engine applies `replaceOnChanges` to the keys listed here. */
import type { Props } from "./properties";
import type { ResourceDoor } from "./resources";

export type DiffKind = "ADD" | "ADD_REPLACE" | "DELETE" | "DELETE_REPLACE" | "UPDATE" | "UPDATE_REPLACE";

/**
 * Only inputs are named: the engine matches `replaceOnChanges` (even `["*"]`) against every key listed, so a status the
 * diff reports (suspended, not listed, unfinished, an unconfirmed batch place) listed here would plan a new order.
 * Undefined when no input changed (a suspension, a server missing from the listing, VNC switched off at EDIS): the engine
 * shows an update with no detail. Each resource's diff names its changed inputs (`changed`) by their meaning; none is
 * guessed here from state, which keeps a secret input only as its digest. (The engine still matches `"*"` against init
 * errors: the docs say to name inputs instead.)
 */
export function detailedDiff(
    door: ResourceDoor,
    olds: Props,
    news: Props,
    result: { changes?: boolean; replaces?: string[]; changed?: string[] },
): Record<string, { kind: DiffKind; inputDiff: boolean }> | undefined {
    const replaces = result.replaces ?? [];
    const names = [...new Set([...(result.changed ?? []), ...replaces])].filter((name) => door.inputNames.includes(name));
    if (result.changes && names.length === 0) return undefined;
    const detail: Record<string, { kind: DiffKind; inputDiff: boolean }> = {};
    for (const name of names) {
        const base = olds[name] == null ? "ADD" : news[name] == null ? "DELETE" : "UPDATE";
        detail[name] = { kind: (replaces.includes(name) ? `${base}_REPLACE` : base) as DiffKind, inputDiff: true };
    }
    return detail;
}
