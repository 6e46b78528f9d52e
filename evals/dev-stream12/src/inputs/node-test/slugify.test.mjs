import { test } from 'node:test';
import assert from 'node:assert/strict';

const slugify = (s) => s.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
  .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

const cases = [
  ['Hello World', 'hello-world'], ['  Leading spaces', 'leading-spaces'], ['Trailing  ', 'trailing'],
  ['Crème brûlée', 'creme-brulee'], ['Ça va?', 'ca-va'], ['A/B testing', 'a-b-testing'],
  ['snake_case_name', 'snake-case-name'], ['Multiple   spaces', 'multiple-spaces'], ['100% done', '100-done'],
  ['C++ & Rust', 'c-rust'], ['Émile Zola', 'emile-zola'], ['--dashes--', 'dashes'],
];

test('slugify', async (t) => {
  for (const [input, want] of cases) {
    await t.test(`slugify(${JSON.stringify(input)})`, () => assert.equal(slugify(input), want));
  }
});
