// The failed tests of a run, one line each, from the JSON reports of Vitest and Playwright: `npm test`
// prints them last, beside the total, so that the tail of a CI log names the test to look at.

const first = (text, max = 300) => (text ?? '').split('\n')[0].slice(0, max);

/** Vitest's JSON report → lines; a file that failed to load is one line of its own. */
export function vitestFailures(report, root) {
  const lines = [];
  for (const file of report.testResults ?? []) {
    const where = file.name.startsWith(`${root}/`) ? file.name.slice(root.length + 1) : file.name;
    if (file.status === 'failed' && file.assertionResults.length === 0) lines.push(`vitest  ${where}: did not load: ${first(file.message)}`);
    for (const t of file.assertionResults) {
      if (t.status === 'failed') lines.push(`vitest  ${where} › ${t.fullName}: ${first(t.failureMessages?.[0])}`);
    }
  }
  return lines;
}

/** Playwright's JSON report → lines, for the tests that failed on their last try (a flaky pass is not one). */
export function playwrightFailures(report) {
  const lines = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'unexpected') continue;
        lines.push(`e2e     [${test.projectName}] ${spec.file}:${spec.line} › ${[...titles, spec.title].join(' › ')}: ${first(test.results?.at(-1)?.error?.message)}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  return lines;
}
