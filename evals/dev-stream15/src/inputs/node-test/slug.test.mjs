import { test } from 'node:test';
import assert from 'node:assert/strict';

function slugify(s) {
  return s.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

const cases = [
  ['Hello World', 'hello-world'],
  ['  Leading spaces', 'leading-spaces'],
  ['Trailing spaces  ', 'trailing-spaces'],
  ['Multiple   spaces', 'multiple-spaces'],
  ['Under_score', 'under-score'],
  ['Dots.in.name', 'dots-in-name'],
  ['CAPS LOCK', 'caps-lock'],
  ['123 Numbers', '123-numbers'],
  ['Symbols!@#', 'symbols'],
  ['Already-slugged', 'already-slugged'],
];

for (const [input, expected] of cases) {
  test(`slugify(${JSON.stringify(input)}) is ${expected}`, () => {
    assert.equal(slugify(input), expected);
  });
}
