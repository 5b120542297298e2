// How a message in the core names a setting without knowing the front end: a reference each front end
// spells its own way (`src/frontend/settings.ts`).
import { SETTING_ROWS, type SettingKey } from './settings.js';

/**
 * A setting a message can tell the user to turn on, by its key in the settings table
 * (src/base/settings.ts). The core names settings only through {@link optionRef}; each front end
 * spells them its own way when it prints ({@link phraseOptions}; the spellings are
 * src/frontend/settings.ts): `--replace` in the CLI, `the input replace: true` in the Action.
 */
export type OptionKey = SettingKey;

const OPTION_REF = new RegExp(`⟦(${SETTING_ROWS.map((s) => s.key).join('|')})⟧`, 'g');

/** A reference to option `key` inside a message, for the front end to spell ({@link phraseOptions}). */
export function optionRef(key: OptionKey): string {
  return `⟦${key}⟧`;
}

/** `text` with every {@link optionRef} spelled by `spell` (a front end's name for the option). */
export function phraseOptions(text: string, spell: (key: OptionKey) => string): string {
  return text.replace(OPTION_REF, (_, key: OptionKey) => spell(key));
}

/**
 * A JSON-shaped value (a report, a failure) with every string's {@link optionRef}s spelled: the
 * references contain no character JSON escapes, so the serialized text is rewritten as it is.
 */
export function phraseOptionsIn<T>(value: T, spell: (key: OptionKey) => string): T {
  return JSON.parse(phraseOptions(JSON.stringify(value), spell)) as T;
}
