// Ends a jest run with one plain line, "N passed, N failed[, N skipped]", that any CI can read.
class SummaryReporter {
    onRunComplete(_contexts, results) {
        const skipped = results.numPendingTests + results.numTodoTests;
        const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
        process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
    }
}
module.exports = SummaryReporter;
