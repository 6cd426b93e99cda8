/** The per-property diff the plugin reports: the engine applies `replaceOnChanges` to the keys listed here. */
import type { Props } from "./properties";
import type { ResourceDoor } from "./resources";

export type DiffKind = "ADD" | "ADD_REPLACE" | "DELETE" | "DELETE_REPLACE" | "UPDATE" | "UPDATE_REPLACE";

/**
 * Only inputs are named, by meaning (`changed`): the engine matches `replaceOnChanges` (even `["*"]`) against every key
 * listed, so a listed status (suspended, not listed, unfinished, unconfirmed batch place) would plan a new order.
 * Undefined when no input changed: the engine shows an update with no detail.
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
