// setupFilesAfterEnv: a test during which any simulator answered outside the specification fails, whatever it asserted.
import { takeViolations } from "./conformance";

function failOnViolations(): void {
    const violations = takeViolations();
    if (violations.length) {
        throw new Error(`the simulator answered outside the interface specification:\n  ${[...new Set(violations)].join("\n  ")}`);
    }
}

afterEach(failOnViolations);
afterAll(failOnViolations);
