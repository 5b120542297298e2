// The likely word meant by a misspelt one, for messages naming an unknown value.
import { expect, test } from 'vitest';
import { likelyMeant } from '../../../src/base/spelling.js';

const ARGO = ['PreSync', 'Sync', 'PostSync', 'SyncFail', 'PreDelete', 'PostDelete', 'Skip'];
const HELM = ['pre-install', 'pre-upgrade', 'post-install', 'post-upgrade', 'test', 'test-success'];

test.each([
  ['PreSnyc', ARGO, 'PreSync'], // two neighbours swapped: one edit
  ['presync', ARGO, 'PreSync'], // another case
  ['Synk', ARGO, 'Sync'],
  ['PostSyncc', ARGO, 'PostSync'],
  ['Deploy', ARGO, undefined], // nothing close
  ['pre-instal', HELM, 'pre-install'],
  ['pre-upgrde', HELM, 'pre-upgrade'],
  ['tset', HELM, 'test'],
  ['tst', HELM, 'test'],
  ['x', HELM, undefined],
  ['pre-install', HELM, undefined], // known: nothing else meant
  ['bar', ['baz', 'bat'], undefined], // two equally close: no guess
])('%s among %j: %s', (word, known, meant) => {
  expect(likelyMeant(word, known)).toBe(meant);
});
