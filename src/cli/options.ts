// The CLI's flags from the settings table: commander options (flags, help, parser, choices, default)
// and their TypeScript types (CliFlags), both derived from each setting's row and texts, so a new
// setting's flag needs no other edit here, and no default is restated in the CLI's code.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { RowOf, SettingKey } from '../base/settings.js';
import { parseDuration, parseLeaseDuration } from '../core/duration.js';
import type { SETTING_TEXTS } from '../frontend/setting-texts.js';
import {
  parseCount,
  type Setting,
  type Command as SettingCommand,
  type SettingType,
  settingsOf,
} from '../frontend/settings.js';
import { type BuildCache, parseBuildCache, parsePlatforms } from '../image/index.js';
import { parseUrlFrom, type UrlFrom } from '../report/url.js';

/** A commander argument parser that turns a thrown Error into commander's usage error. */
const arg =
  <T>(parse: (value: string) => T) =>
  (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };

function buildArg(value: string, previous: Record<string, string>): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`expected KEY=VALUE, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** A build secret flag, `id=ID,env=VAR` (docker buildx build's `--secret` form, the value from an environment variable). */
export interface SecretFlag {
  readonly id: string;
  readonly env: string;
}

function secretFlag(value: string, previous: readonly SecretFlag[]): SecretFlag[] {
  const fields = Object.fromEntries(
    value.split(',').map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)]),
  );
  if (!fields.id || !/^[A-Za-z0-9_.-]+$/.test(fields.id) || !fields.env || Object.keys(fields).length !== 2)
    throw new InvalidArgumentError(`expected id=ID,env=VARIABLE, got "${value}"`);
  return [...previous, { id: fields.id, env: fields.env }];
}

/**
 * How the CLI takes a value of each setting type (src/base/settings.ts): the argument parser and the
 * default's value, from the default's text. Undefined: the flag's text as given. The CLI checks names
 * where the cluster or the registry would refuse them, later and with their words.
 */
const TAKE = {
  string: undefined,
  secret: undefined,
  boolean: undefined,
  'auto-boolean': undefined,
  choice: undefined,
  duration: { parse: arg(parseDuration), value: parseDuration },
  'lease-duration': { parse: arg(parseLeaseDuration), value: parseLeaseDuration },
  count: { parse: arg(parseCount), value: parseCount },
  namespace: undefined,
  registry: undefined,
  tag: undefined,
  'build-args': { parse: buildArg },
  'key-values': { parse: buildArg },
  paths: { parse: (value: string, previous: readonly string[]) => [...previous, value] },
  platforms: { parse: arg(parsePlatforms) },
  'build-secrets': { parse: secretFlag },
  'build-cache': { parse: arg((v: string) => parseBuildCache(v)) },
  'url-from': { parse: arg(parseUrlFrom) },
  environments: undefined,
  array: undefined,
} as const satisfies {
  readonly [T in SettingType]:
    | {
        readonly parse?: (value: string, previous: never) => FlagValue[T];
        readonly value?: (d: string) => FlagValue[T];
      }
    | undefined;
};

/** The value commander gives for a flag of each setting type (TAKE's parsers return it). */
interface FlagValue {
  string: string;
  secret: string;
  boolean: boolean;
  'auto-boolean': string;
  choice: string;
  duration: number;
  'lease-duration': number;
  count: number;
  namespace: string;
  registry: string;
  tag: string;
  'build-args': Record<string, string>;
  'key-values': Record<string, string>;
  paths: readonly string[];
  platforms: readonly string[];
  'build-secrets': readonly SecretFlag[];
  'build-cache': BuildCache | undefined;
  'url-from': UrlFrom;
  environments: string;
  array: never;
}

/** Setting types whose flag always has a value: booleans (off, or on for `--no-…`) and the repeatable ones. */
type AlwaysGiven = 'boolean' | 'build-args' | 'key-values' | 'paths' | 'build-secrets';

type Texts = typeof SETTING_TEXTS;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type LongName<F extends string> = F extends `${string}--${infer R}`
  ? R extends `${infer N} ${string}`
    ? N
    : R
  : never;
/** Commander's attribute name of a flag: `--build-arg <KEY=VALUE>` → buildArg, `--no-prune` → prune. */
type AttributeOf<F extends string> = LongName<F> extends `no-${infer N}` ? Camel<N> : Camel<LongName<F>>;
type FlagOf<K extends SettingKey> = Texts[K] extends { cli: { flags: infer F extends string } } ? F : never;
/** The settings whose flag command `C` takes: the texts' `cli.commands`, else the row's modes. */
type CliKey<C extends SettingCommand> = {
  [K in SettingKey]: Texts[K] extends { cli: infer F }
    ? C extends (F extends { commands: readonly (infer X)[] } ? X : RowOf<K>['modes'][number])
      ? K
      : never
    : never;
}[SettingKey];
type ValueOfFlag<K extends SettingKey> =
  RowOf<K> extends { choices: readonly (infer X)[] } ? X : FlagValue[RowOf<K>['type']];
/** Whether flag `K` of command `C` always has a value: by its type, or a default (the row's, or `C`'s). */
type Given<K extends SettingKey, C extends SettingCommand> = RowOf<K>['type'] extends AlwaysGiven
  ? true
  : RowOf<K> extends { default: string }
    ? true
    : Texts[K] extends { cli: { defaultIn: { [P in C]: string } } }
      ? true
      : false;

/**
 * The flags of command `C` as commander gives them to its action, derived from the settings table:
 * one field per setting the command takes, named by commander's attribute name, typed by the
 * setting's type (or its choices), optional unless it always has a value.
 */
export type CliFlags<C extends SettingCommand> = {
  -readonly [K in CliKey<C> as Given<K, C> extends true ? AttributeOf<FlagOf<K>> : never]: ValueOfFlag<K>;
} & {
  -readonly [K in CliKey<C> as Given<K, C> extends true ? never : AttributeOf<FlagOf<K>>]?: ValueOfFlag<K>;
};

type PassedKey<C extends SettingCommand> = {
  [K in CliKey<C>]: RowOf<K> extends { passedAs: string } ? K : never;
}[CliKey<C>];
type PassedAs<K extends SettingKey> = RowOf<K> extends { passedAs: infer F extends string } ? F : never;

/**
 * The deploy's options that command `C`'s flags give as they are parsed (the settings' `passedAs`:
 * `--timeout` → timeoutMs), typed as {@link CliFlags} types the flags.
 */
export type PassedOptions<C extends SettingCommand> = {
  -readonly [K in PassedKey<C> as Given<K, C> extends true ? PassedAs<K> : never]: ValueOfFlag<K>;
} & {
  -readonly [K in PassedKey<C> as Given<K, C> extends true ? never : PassedAs<K>]?: ValueOfFlag<K>;
};

/** The options `flags` of `command` give the deploy as they are (see {@link PassedOptions}); absent flags give none. */
export function passedOptions<C extends SettingCommand>(command: C, flags: CliFlags<C>): PassedOptions<C> {
  const given = flags as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const s of settingsOf(command)) {
    if (!s.passedAs || !s.cli || !(s.cli.commands ?? s.modes).includes(command)) continue;
    const value = given[new Option(s.cli.flags).attributeName()];
    if (value !== undefined) out[s.passedAs] = value;
  }
  return out as PassedOptions<C>;
}

/** The commander option of setting `s` in `command`: flags, help, parser, choices and default. */
export function optionOf(s: Setting, command: SettingCommand): Option {
  const flag = s.cli!;
  const option = new Option(flag.flags, flag.helpIn?.[command] ?? flag.help ?? s.description);
  const take: { readonly parse?: unknown; readonly value?: (d: string) => unknown } | undefined =
    TAKE[s.type];
  if (take?.parse) option.argParser(take.parse as (value: string, previous: unknown) => unknown);
  if (s.choices) option.choices(s.choices);
  if (s.type === 'build-args' || s.type === 'key-values') return option.default({}, 'none');
  if (s.type === 'paths') return option.default([], 'none');
  if (s.type === 'build-secrets') return option.default([], 'none');
  if (s.type === 'boolean') {
    // `--no-prune` turns off what is on by default: the flag's form says the row's default.
    const on = flag.flags.startsWith('--no-');
    if (on !== (s.default === 'true'))
      throw new Error(`setting ${s.key}: ${flag.flags} does not fit its default "${s.default}"`);
    return on ? option : option.default(false);
  }
  const text = flag.defaultIn?.[command] ?? s.default;
  if (text === '') return option;
  const value = take?.value ? take.value(text) : text;
  return value === text ? option.default(value) : option.default(value, text);
}

/**
 * Adds the flags of every setting that applies to `command` (its `modes`, or its flag's `commands`),
 * in the table's order.
 * @returns `cmd`, for chaining.
 */
export function addSettings(cmd: Command, command: SettingCommand): Command {
  for (const s of settingsOf(command)) {
    if (s.cli && (s.cli.commands ?? s.modes).includes(command)) cmd.addOption(optionOf(s, command));
  }
  return cmd;
}
