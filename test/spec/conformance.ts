/**
 * Collects, for the whole test run, what the simulators answered outside the specification. Every simulator a
 * test starts (test/support/sim.ts) reports each answer here; checkEveryAnswer.ts fails the test during which
 * a violation happened.
 */
import type { SimAnswer } from "../../simulator/server";
import { conformanceProblems } from "./specSchemas";

const violations: string[] = [];

/** Checks one answer; the simulator's `onAnswer` hook. */
export function observeAnswer(answer: SimAnswer): void {
    violations.push(...conformanceProblems(answer));
}

/** The violations seen since the last call. */
export function takeViolations(): string[] {
    return violations.splice(0);
}
