// How a message in the core names a setting without knowing the front end: a reference each front end
// spells its own way (`--replace` in the CLI, `the input replace: true` in the Action and GitLab).
import { longFlag, SETTINGS, type SettingKey, setting } from '../base/settings.js';

/**
 * A setting a message can tell the user to turn on, by its key in the settings table
 * (src/base/settings.ts). The core names settings only through {@link optionRef}; each front end
 * spells them its own way when it prints ({@link phraseOptions}): `--replace` in the CLI,
 * `the input replace: true` in the Action.
 */
export type OptionKey = SettingKey;

const OPTION_REF = new RegExp(`⟦(${SETTINGS.map((s) => s.key).join('|')})⟧`, 'g');

/** A reference to option `key` inside a message, for the front end to spell ({@link phraseOptions}). */
export function optionRef(key: OptionKey): string {
  return `⟦${key}⟧`;
}

/**
 * A setting as the Action and the GitLab component name it: their input, with the value that turns
 * it on for a boolean (`the input replace: true`).
 */
export const inputSpelling = (key: OptionKey): string =>
  setting(key).type === 'boolean' ? `the input ${key}: true` : `the input ${key}`;

/** A setting as the CLI names it: its long flag (`--replace`). */
export const flagSpelling = (key: OptionKey): string => {
  const { cli } = setting(key);
  return cli ? longFlag(cli) : `--${key}`;
};

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
