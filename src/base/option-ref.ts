/**
 * A deploy option a message can tell the user to turn on, by its key (the Action's input name, which
 * is also the CLI's flag without `--`). The core names options only through {@link optionRef}; each
 * front end spells them its own way when it prints ({@link phraseOptions}): `--replace` in the CLI,
 * `the input replace: true` in the Action.
 */
export type OptionKey = 'force-conflicts' | 'replace' | 'adopt';

const OPTION_REF = /⟦(force-conflicts|replace|adopt)⟧/g;

/** A reference to option `key` inside a message, for the front end to spell ({@link phraseOptions}). */
export function optionRef(key: OptionKey): string {
  return `⟦${key}⟧`;
}

/** An option as the Action and the GitLab component name it: their input, `the input replace: true`. */
export const inputSpelling = (key: OptionKey): string => `the input ${key}: true`;

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
