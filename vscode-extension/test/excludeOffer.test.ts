import assert from 'node:assert/strict';
import { test } from 'node:test';
import { excludeOffer, globHolds, MIN_PROBLEMS, offerMessage, testFolderGlob, withGlobs, type FileProblems } from '../src/excludeOffer';

/** `n` broken runways under `folder`, `each` problems apiece. */
function broken(folder: string, n: number, each = 1): FileProblems[] {
  return Array.from({ length: n }, (_, i) => ({ path: `${folder}/bad-${i}/runway.yaml`, problems: each }));
}
const none = { exclude: [], offered: [], dismissed: false };

test('the glob of a test folder: its first test-named folder and the test-named ones right under it', () => {
  assert.equal(testFolderGlob('tests/fixtures/bad-1/runway.yaml'), 'tests/fixtures/**');
  assert.equal(testFolderGlob('services/api/test/runway.yaml'), 'services/api/test/**');
  assert.equal(testFolderGlob('pkg/testdata/x/runway.yml'), 'pkg/testdata/**');
  assert.equal(testFolderGlob('src/__fixtures__/a/runway.yaml'), 'src/__fixtures__/**');
  assert.equal(testFolderGlob('Examples/broken/runway.yaml'), 'Examples/**');
  assert.equal(testFolderGlob('tests/runway.yaml'), 'tests/**');
  // Not a folder named like one: a product's own runway, a file named tests, a look-alike.
  assert.equal(testFolderGlob('runway.yaml'), null);
  assert.equal(testFolderGlob('services/latest/runway.yaml'), null);
  assert.equal(testFolderGlob('contests/x/runway.yaml'), null);
});

test('the issue 26 repository: 1,240 of 1,249 problems under tests/fixtures: offered, naming the glob', () => {
  const files = [...broken('tests/fixtures', 620, 2), { path: 'runway.yaml', problems: 1 }, { path: 'services/api/runway.yaml', problems: 8 }];
  const offer = excludeOffer({ files, ...none });
  assert.deepEqual(offer, { globs: ['tests/fixtures/**'], problems: 1240, total: 1249 });
  const text = offerMessage(offer!);
  assert.equal(text.exclude, 'Exclude tests/fixtures/**');
  assert.equal(text.never, "Don't ask again");
  assert.match(text.message, /^Runway: 1,240 of 1,249 problems are in test or fixture folders \(tests\/fixtures\/\*\*\)\. .*"runway\.exclude"/);
});

test('thresholds: at least 100 problems under the globs, or most of them (at least 20)', () => {
  assert.equal(MIN_PROBLEMS, 100);
  // 100 of 1,000: enough by count, though not most.
  assert.ok(excludeOffer({ files: [...broken('tests', 100), { path: 'runway.yaml', problems: 900 }], ...none }));
  // 99 of 1,000: neither.
  assert.equal(excludeOffer({ files: [...broken('tests', 99), { path: 'runway.yaml', problems: 901 }], ...none }), null);
  // 30 of 40: most, and at least 20.
  assert.deepEqual(excludeOffer({ files: [...broken('fixtures', 30), { path: 'runway.yaml', problems: 10 }], ...none })?.globs, ['fixtures/**']);
  // 15 of 16: most, but too few to bother anyone.
  assert.equal(excludeOffer({ files: [...broken('fixtures', 15), { path: 'runway.yaml', problems: 1 }], ...none }), null);
  // This checkout as the E2E opens it (tests/** excluded): examples/orders' one problem.
  assert.equal(excludeOffer({ files: [{ path: 'examples/orders/runway.yaml', problems: 1 }, { path: 'scratch/broken/runway.yaml', problems: 3 }], ...none }), null);
  // No problems at all.
  assert.equal(excludeOffer({ files: [], ...none }), null);
});

test('which globs: the test folders with most of the problems, most first, at most three; a stray one is left', () => {
  const files = [...broken('tests/fixtures', 90), ...broken('examples', 40), ...broken('pkg/testdata', 20), ...broken('a/test', 12), ...broken('b/test', 3)];
  const offer = excludeOffer({ files, ...none });
  // b/test (3 problems) is under the 10-problem floor; a/test under 10 % of the candidates' 165.
  assert.deepEqual(offer?.globs, ['tests/fixtures/**', 'examples/**', 'pkg/testdata/**']);
  assert.equal(offer?.problems, 150);
  assert.equal(offerMessage(offer!).exclude, 'Exclude tests/fixtures/**, examples/**, pkg/testdata/**');
});

test('never for folders already excluded: by runway.exclude or files.exclude, whatever the glob form', () => {
  const files = broken('tests/fixtures', 150);
  for (const glob of ['tests/**', 'tests', 'tests/fixtures', 'tests/fixtures/**', '**/fixtures/**', 'tests/*/**', '{tests,examples}/**', 't[e]sts/**', './tests/**']) {
    assert.equal(excludeOffer({ files, exclude: [glob], offered: [], dismissed: false }), null, glob);
  }
  // An exclusion elsewhere changes nothing.
  assert.ok(excludeOffer({ files, exclude: ['examples/broken/**', 'test/**'], offered: [], dismissed: false }));
  // Half excluded already: only the other folder is offered, if it holds enough.
  const two = [...broken('tests/fixtures', 150), ...broken('examples', 120)];
  assert.deepEqual(excludeOffer({ files: two, exclude: ['tests/**'], offered: [], dismissed: false })?.globs, ['examples/**']);
});

test('never twice: not the globs offered before, nothing after "Don\'t ask again"', () => {
  const files = [...broken('tests/fixtures', 150), ...broken('examples', 120)];
  assert.equal(excludeOffer({ files, exclude: [], offered: [], dismissed: true }), null);
  assert.equal(excludeOffer({ files, exclude: [], offered: ['tests/fixtures/**', 'examples/**'], dismissed: false }), null);
  assert.deepEqual(excludeOffer({ files, exclude: [], offered: ['tests/fixtures/**'], dismissed: false })?.globs, ['examples/**']);
});

test('globs as the server reads them: a glob holds the folders under what it matches; hostile globs stay fast', () => {
  assert.ok(globHolds('tests/**', 'tests/a/runway.yaml'));
  assert.ok(globHolds('tests', 'tests/a/runway.yaml'));
  assert.ok(globHolds('**/runway.yaml', 'a/b/runway.yaml'));
  assert.ok(globHolds('*/b/*.yaml', 'a/b/runway.yaml'));
  assert.ok(globHolds('a/?/runway.yaml', 'a/b/runway.yaml'));
  assert.ok(globHolds('[!x]/**', 'a/b/runway.yaml'));
  assert.ok(!globHolds('test/**', 'tests/a/runway.yaml'));
  assert.ok(globHolds('*', 'a/b/runway.yaml')); // `*` matches the folder `a`: it holds what is under it
  assert.ok(!globHolds('b/**', 'a/b/runway.yaml'));
  assert.ok(!globHolds('', 'a/runway.yaml'));
  // Memoised matching (no backtracking regex): these finish at once (exponential before a memo);
  // brace expansion stops at 64 patterns.
  const deep = `${'a'.repeat(60)}/b/${'a'.repeat(60)}/runway.yaml`;
  assert.ok(!globHolds('*a'.repeat(30) + 'x', deep));
  assert.ok(!globHolds('**/'.repeat(30) + 'x', deep));
  assert.ok(!globHolds('{a,{b,{c,{d,e}}}}'.repeat(8) + 'x', deep));
});

test('writing the offer: the globs appended to runway.exclude, each once, the existing ones kept', () => {
  assert.deepEqual(withGlobs(['examples/broken/**'], ['tests/fixtures/**']), ['examples/broken/**', 'tests/fixtures/**']);
  assert.deepEqual(withGlobs(['tests/fixtures/**'], ['tests/fixtures/**']), ['tests/fixtures/**']);
  assert.deepEqual(withGlobs(undefined, ['a/**']), ['a/**']);
  assert.deepEqual(withGlobs('tests/**', ['a/**']), ['a/**']);
});
